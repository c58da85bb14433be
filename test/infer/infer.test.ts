import { describe, expect, it } from "vitest";
import { inferCatalog, inferTests } from "../../src/infer/infer.js";
import { RULE_IDS } from "../../src/catalog/rule-ids.js";
import { derived, structured } from "./fixtures.js";

const revenue = structured({
  filter: "status = 'completed'",
  timestamp: "created_at",
  freshness_seconds: 3600,
  measures: [
    { alias: "revenue", function: "Sum", column: "amount" },
    { alias: "avg_revenue", function: "Avg", column: "amount" },
    { alias: "orders", function: "Count", column: "order_id" },
  ],
  dimensions: [{ name: "segment", source_table: "shop.customers", column: "segment" }],
  joins: [{ table: "shop.customers", type: "left", left_column: "customer_id", right_column: "id", relationship: "many_to_one" }],
});
const average = structured({
  name: "avg_order",
  filter: "status = 'completed'",
  measures: [{ alias: "avg", function: "Avg", column: "amount" }],
});
const unfiltered = structured({ name: "all_revenue", measures: [{ alias: "all", function: "Sum", column: "amount" }] });
const ratio = derived("revenue_per_order", ["gross_revenue", "avg_order"]);
const outer = derived("outer", ["revenue_per_order"]);
const all = [revenue, average, unfiltered, ratio, outer];

describe("inferTests", () => {
  it("emits tests in rule order with one test per key within a metric", () => {
    const tests = inferTests(revenue, all);
    const order = tests.map((t) => RULE_IDS.indexOf(t.rule as never));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(new Set(tests.map((t) => t.key)).size).toBe(tests.length);
    expect(tests.filter((t) => t.rule === "measure_not_null")).toHaveLength(1); // Sum and Avg of amount
    expect(tests.every((t) => t.metric === "gross_revenue")).toBe(true);
  });

  it("builds the key from datasource, table, filter, rule and check", () => {
    const test = inferTests(revenue, all).find((t) => t.rule === "measure_not_null")!;
    expect(test.key).toBe("default|shop.orders|status = 'completed'|measure_not_null|amount IS NOT NULL");
    const join = inferTests(revenue, all).find((t) => t.rule === "join_key_unique")!;
    expect(join.key).toBe(
      "default|shop.customers|toString(`id`) IN (SELECT toString(`customer_id`) FROM `shop`.`orders` WHERE status = 'completed')|join_key_unique|id is unique in shop.customers",
    );
  });

  it("shares keys across metrics with the same table, filter and check, and not otherwise", () => {
    const key = (ir: typeof revenue) => inferTests(ir, all).find((t) => t.rule === "measure_not_null")!.key;
    expect(key(average)).toBe(key(revenue));
    expect(key(unfiltered)).not.toBe(key(revenue));
    expect(key(structured({ datasource: "eu", filter: "status = 'completed'" }))).not.toBe(key(revenue));
  });

  it("derived metrics inherit every input test, relabelled, with the same keys", () => {
    const inputs = [...inferTests(revenue, all), ...inferTests(average, all)];
    const tests = inferTests(ratio, all);
    expect(tests.every((t) => t.metric === "revenue_per_order")).toBe(true);
    // avg_order's NULL check shares gross_revenue's key: inherited once.
    expect(tests.map((t) => t.key)).toEqual([...new Set(inputs.map((t) => t.key))]);
    expect(tests[0]!.name).toBe("gross_revenue: shop.orders has rows where status = 'completed'");
    const nested = inferTests(outer, all);
    expect(nested.map((t) => t.key)).toEqual(tests.map((t) => t.key));
    expect(nested.map((t) => t.name)).toEqual(tests.map((t) => t.name));
    expect(nested.every((t) => t.metric === "outer")).toBe(true);
  });

  it("keeps the strictest tolerance when two inputs share a check", () => {
    const lenient = structured({ name: "lenient", tolerances: { measure_not_null: 0.5 } });
    const strict = structured({ name: "strict" });
    const both = derived("both", ["lenient", "strict"]);
    const check = (ir: typeof both) => inferTests(ir, [lenient, strict, both]).find((t) => t.rule === "measure_not_null")!;
    expect(check(lenient).tolerance).toBe(0.5);
    expect(check(both)).toMatchObject({ tolerance: 0, name: "strict: revenue (amount) is never NULL", metric: "both" });
    // Same position as the first input's copy: the order of a metric's tests stays stable.
    expect(inferTests(both, [lenient, strict, both]).map((t) => t.key)).toEqual(inferTests(lenient, []).map((t) => t.key));
  });

  it("stays total on missing inputs and cycles", () => {
    expect(inferTests(derived("lonely", ["ghost"]), [])).toEqual([]);
    const a = derived("a", ["b", "gross_revenue"]);
    const b = derived("b", ["a"]);
    expect(inferTests(a, [a, b, revenue]).length).toBe(inferTests(revenue, []).length);
  });
});

describe("inferCatalog", () => {
  it("concatenates metrics in catalogue order", () => {
    const tests = inferCatalog(all);
    const metrics = tests.map((t) => t.metric).filter((m, i, list) => list.indexOf(m) === i);
    expect(metrics).toEqual(["gross_revenue", "avg_order", "all_revenue", "revenue_per_order", "outer"]);
    expect(inferCatalog(all)).toEqual(tests);
  });

  it("names each column with one shared object across checks, equal to what each rule made", () => {
    const tests = inferCatalog(all);
    const amount = tests.filter((t) => t.table === "shop.orders").flatMap((t) => t.columns.filter((c) => c.column === "amount"));
    // Several checks (NULL, finite, non-negative, anomalies on revenue, on avg_order...) name it.
    expect(new Set(tests.filter((t) => t.columns.some((c) => c.column === "amount")).map((t) => t.key)).size).toBeGreaterThan(2);
    expect(new Set(amount).size).toBe(1);
    expect(amount[0]).toEqual({ table: "shop.orders", column: "amount" });
    // Every test's lists still name what inferTests gives for its metric.
    const direct = all.flatMap((ir) => inferTests(ir, all));
    expect(tests.map((t) => [t.columns, t.filter_columns])).toEqual(direct.map((t) => [t.columns, t.filter_columns]));
  });

  it("quotes every identifier in emitted SQL", () => {
    const identifiers = ["amount", "order_id", "customer_id", "created_at", "segment", "id", "shop", "orders", "customers"];
    for (const test of inferCatalog(all)) {
      const sql = [
        test.sample_sql,
        test.probe.type === "rows_where" ? test.probe.violation : "",
        test.probe.type === "duplicate_keys" ? test.probe.key : "",
        test.probe.type === "staleness" ? test.probe.column : "",
      ].join("\n");
      // Drop backquoted identifiers, string literals and the (unparsed) filter; no identifier may remain bare.
      const rest = sql
        .replace(/`[^`]*`/g, "")
        .replace(/'[^']*'/g, "")
        .split("status = ")
        .join("");
      for (const name of identifiers) expect(rest, `${test.rule}: ${sql}`).not.toMatch(new RegExp(`\\b${name}\\b`));
    }
  });
});
