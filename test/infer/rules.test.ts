import { describe, expect, it } from "vitest";
import { inferTests } from "../../src/infer/infer.js";
import { isAmountLike } from "../../src/infer/rules/measure-non-negative.js";
import type { InferredTest } from "../../src/infer/types.js";
import { structured } from "./fixtures.js";

const FULL = structured({
  filter: "status = 'completed'",
  filter_columns: ["status"],
  timestamp: "created_at",
  freshness_seconds: 21_600,
  measures: [
    { alias: "revenue", function: "Sum", column: "amount" },
    { alias: "orders", function: "CountDistinct", column: "order_id" },
    { alias: "rows", function: "Count", column: null },
  ],
  dimensions: [
    { name: "country", source_table: null, column: "country" },
    { name: "segment", source_table: "shop.customers", column: "segment" },
  ],
  joins: [{ table: "shop.customers", type: "left", left_column: "customer_id", right_column: "id", relationship: "many_to_one" }],
});
const tests = inferTests(FULL, [FULL]);
const byRule = (rule: string): InferredTest[] => tests.filter((t) => t.rule === rule);
const only = (rule: string): InferredTest => {
  const found = byRule(rule);
  expect(found, rule).toHaveLength(1);
  return found[0]!;
};
const F = "status = 'completed'";
const REACH = "toString(`id`) IN (SELECT toString(`customer_id`) FROM `shop`.`orders` WHERE status = 'completed')";

describe("inference rules", () => {
  it("table_not_empty: the base table with the filter", () => {
    expect(only("table_not_empty")).toMatchObject({
      severity: "HIGH",
      confidence: "high",
      table: "shop.orders",
      filter: F,
      probe: { type: "not_empty" },
      check: "count() > 0",
      tolerance: 0,
    });
    expect(only("table_not_empty").sample_sql).toBe("SELECT count() AS rows FROM `shop`.`orders` WHERE (status = 'completed')");
  });

  it("filter_columns_exist: a schema test of the filter's columns, and every filtered test needs them", () => {
    expect(only("filter_columns_exist")).toMatchObject({
      severity: "HIGH",
      confidence: "medium",
      table: "shop.orders",
      filter: null,
      check: "shop.orders has columns status",
      columns: [{ table: "shop.orders", column: "status" }],
      probe: { type: "schema" },
    });
    for (const test of tests) {
      expect(test.filter_columns, test.name).toEqual(
        test.filter === F && test.table === "shop.orders" ? [{ table: "shop.orders", column: "status" }] : [],
      );
    }
    expect(inferTests(structured({ filter: "1 = 1", filter_columns: [] }), []).some((t) => t.rule === "filter_columns_exist")).toBe(false);
  });

  it("columns_exist: one schema test per table, listing that table's columns", () => {
    const [base, joined] = byRule("columns_exist");
    expect(byRule("columns_exist")).toHaveLength(2);
    expect(base).toMatchObject({ table: "shop.orders", filter: null, severity: "HIGH", confidence: "high", probe: { type: "schema" } });
    expect(base!.columns.map((c) => c.column)).toEqual(["amount", "country", "created_at", "customer_id", "order_id"]);
    expect(base!.columns.every((c) => c.table === "shop.orders")).toBe(true);
    expect(joined!.columns).toEqual([
      { table: "shop.customers", column: "id" },
      { table: "shop.customers", column: "segment" },
    ]);
    expect(joined!.sample_sql).toBe("SELECT name, type FROM system.columns WHERE database = 'shop' AND table = 'customers' ORDER BY name");
  });

  it("measure_not_null and measure_finite: only value measures", () => {
    expect(only("measure_not_null")).toMatchObject({
      severity: "HIGH",
      confidence: "high",
      check: "amount IS NOT NULL",
      name: "revenue (amount) is never NULL",
      probe: { type: "rows_where", violation: "`amount` IS NULL" },
    });
    expect(only("measure_not_null").sample_sql).toBe(
      "SELECT * FROM `shop`.`orders` WHERE (status = 'completed') AND (`amount` IS NULL) LIMIT 10",
    );
    expect(only("measure_finite")).toMatchObject({
      severity: "HIGH",
      confidence: "high",
      columns: [{ table: "shop.orders", column: "amount" }],
      probe: { violation: "isNaN(`amount`) OR isInfinite(`amount`)" },
    });
  });

  it("measure_non_negative: declared -> high, heuristic -> medium, declared false -> none", () => {
    expect(only("measure_non_negative")).toMatchObject({
      severity: "MEDIUM",
      confidence: "medium",
      tolerance: 0.01,
      check: "amount >= 0",
      probe: { violation: "`amount` < 0" },
    });
    const declared = structured({ measures: [{ alias: "x", function: "Avg", column: "duration", non_negative: true } as never] });
    expect(inferTests(declared, []).filter((t) => t.rule === "measure_non_negative")[0]).toMatchObject({ confidence: "high" });
    const optOut = structured({ measures: [{ alias: "x", function: "Sum", column: "amount", non_negative: false } as never] });
    expect(inferTests(optOut, []).some((t) => t.rule === "measure_non_negative")).toBe(false);
    const plain = structured({ measures: [{ alias: "x", function: "Max", column: "duration" }] });
    expect(inferTests(plain, []).some((t) => t.rule === "measure_non_negative")).toBe(false);
  });

  it("amount heuristic matches whole snake_case or camelCase words", () => {
    for (const yes of ["amount", "net_revenue", "unit_price", "TotalCost", "fees", "order_qty", "gross_sales"])
      expect(isAmountLike(yes), yes).toBe(true);
    for (const no of ["amountish", "discounted", "priceless_flag", "duration", "evaluated"]) expect(isAmountLike(no), no).toBe(false);
  });

  it("count_key_not_null: Count/CountDistinct with a column", () => {
    expect(only("count_key_not_null")).toMatchObject({
      severity: "MEDIUM",
      confidence: "high",
      check: "order_id IS NOT NULL",
      probe: { violation: "`order_id` IS NULL" },
    });
  });

  it("dimension_not_null: base dimensions with the filter, joined ones on the rows the join reaches", () => {
    const [country, segment] = byRule("dimension_not_null");
    expect(country).toMatchObject({
      severity: "MEDIUM",
      confidence: "high",
      table: "shop.orders",
      filter: F,
      probe: { violation: "isNull(`country`) OR toString(`country`) = ''" },
    });
    expect(segment).toMatchObject({ table: "shop.customers", filter: REACH, columns: [{ table: "shop.customers", column: "segment" }] });
    expect(segment!.sample_sql).toBe(
      `SELECT * FROM \`shop\`.\`customers\` WHERE (${REACH}) AND (isNull(\`segment\`) OR toString(\`segment\`) = '') LIMIT 10`,
    );
  });

  it("join_key_unique: scans the keys of the joined table that the metric's rows reach", () => {
    const test = only("join_key_unique");
    expect(test).toMatchObject({
      severity: "HIGH",
      confidence: "high",
      table: "shop.customers",
      filter: REACH,
      probe: { type: "duplicate_keys", key: "`id`" },
    });
    const unfiltered = inferTests(structured({ joins: FULL.joins }), []).find((t) => t.rule === "join_key_unique")!;
    expect(unfiltered.sample_sql).toBe(
      "SELECT * FROM `shop`.`customers` WHERE `id` IN (SELECT `id` FROM `shop`.`customers` WHERE (toString(`id`) IN (SELECT toString(`customer_id`) FROM `shop`.`orders`)) GROUP BY `id` HAVING count() > 1) AND (toString(`id`) IN (SELECT toString(`customer_id`) FROM `shop`.`orders`)) ORDER BY `id` LIMIT 10",
    );
  });

  it("join_referential_integrity: scans the base table with the filter", () => {
    expect(only("join_referential_integrity")).toMatchObject({
      severity: "HIGH",
      confidence: "high",
      table: "shop.orders",
      filter: F,
      columns: [
        { table: "shop.orders", column: "customer_id" },
        { table: "shop.customers", column: "id" },
      ],
      probe: { violation: "isNotNull(`customer_id`) AND `customer_id` NOT IN (SELECT `id` FROM `shop`.`customers`)" },
    });
  });

  it("timestamp_not_future and freshness", () => {
    expect(only("timestamp_not_future")).toMatchObject({
      severity: "MEDIUM",
      confidence: "high",
      probe: { violation: "toDateTime(`created_at`) > now() + 300" },
    });
    const fresh = only("freshness");
    expect(fresh).toMatchObject({
      severity: "HIGH",
      confidence: "high",
      name: "newest created_at is at most 6h old",
      probe: { type: "staleness", column: "`created_at`", maxSeconds: 21_600 },
    });
    // Freshness is the table's loading, not a segment's: never under the metric's filter.
    expect(fresh.filter).toBeNull();
    expect(fresh.sample_sql).toBe("SELECT max(`created_at`) AS newest, now() AS checked_at FROM `shop`.`orders`");
    const noFreshness = inferTests(structured({ timestamp: "created_at" }), []);
    expect(noFreshness.map((t) => t.rule)).toContain("timestamp_not_future");
    expect(noFreshness.map((t) => t.rule)).not.toContain("freshness");
  });

  it("tolerance: per-metric override, else the severity default", () => {
    const ir = structured({ tolerances: { measure_not_null: 0.05 } });
    const tolerances = Object.fromEntries(inferTests(ir, []).map((t) => [t.rule, t.tolerance]));
    expect(tolerances).toMatchObject({ measure_not_null: 0.05, measure_finite: 0, measure_non_negative: 0.01 });
  });
});
