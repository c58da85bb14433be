// Rules added for real semantic layers: keys, expressions, filter columns, declared values,
// dbt column tests, and multi-hop reach.
import { describe, expect, it } from "vitest";
import { inferTests } from "../../src/infer/infer.js";
import { handlesNull } from "../../src/infer/rules/filter-column-not-null.js";
import { reachFilters } from "../../src/infer/value-sql.js";
import type { InferredTest } from "../../src/infer/types.js";
import { structured } from "./fixtures.js";

const F = "status = 'completed'";
const ORDERS = structured({
  filter: F,
  filter_columns: ["status"],
  primary_key: "id",
  measures: [{ alias: "net_amount", function: "Sum", column: null, expr: "amount - fee", expr_columns: ["amount", "fee"] }],
  dimensions: [
    { name: "kind", source_table: null, column: "kind", accepted_values: ["new", "returning"] },
    { name: "segment", source_table: "geo.regions", column: "segment" },
  ],
  joins: [
    { table: "shop.customers", type: "inner", left_column: "customer_id", right_column: "id", relationship: "many_to_one" },
    {
      table: "geo.regions",
      from_table: "shop.customers",
      type: "left",
      left_column: "region_id",
      right_column: "id",
      relationship: "many_to_one",
    },
  ],
  declared_tests: [
    { kind: "unique", table: "shop.orders", column: "id", severity: "error", file: "m/schema.yml" },
    {
      kind: "relationships",
      table: "shop.customers",
      column: "region_id",
      severity: "warn",
      to: { table: "geo.regions", column: "id" },
      file: "m/schema.yml",
    },
    {
      kind: "accepted_values",
      table: "shop.orders",
      column: "status",
      severity: "error",
      values: ["completed", "cancelled"],
      file: "m/schema.yml",
    },
  ],
});
const tests = inferTests(ORDERS, [ORDERS]);
const byRule = (rule: string): InferredTest[] => tests.filter((t) => t.rule === rule);
const CUSTOMERS_REACH = "toString(`id`) IN (SELECT toString(`customer_id`) FROM `shop`.`orders` WHERE status = 'completed')";
const REGIONS_REACH = `toString(\`id\`) IN (SELECT toString(\`region_id\`) FROM \`shop\`.\`customers\` WHERE ${CUSTOMERS_REACH})`;

describe("rules for keys, expressions, filters and declared tests", () => {
  it("primary key: unique and never NULL on the metric's rows", () => {
    expect(byRule("primary_key_unique")).toMatchObject([
      { severity: "HIGH", table: "shop.orders", filter: F, probe: { type: "duplicate_keys", key: "`id`" } },
    ]);
    expect(byRule("primary_key_not_null")).toMatchObject([{ severity: "HIGH", filter: F, probe: { violation: "`id` IS NULL" } }]);
  });

  it("foreign keys: NULL keys, HIGH on an inner join, MEDIUM on a left one, each hop on the rows it reaches", () => {
    expect(byRule("foreign_key_not_null").map((t) => [t.table, t.filter, t.severity, t.check])).toEqual([
      ["shop.orders", F, "HIGH", "customer_id IS NOT NULL"],
      ["shop.customers", CUSTOMERS_REACH, "MEDIUM", "region_id IS NOT NULL"],
    ]);
    expect(byRule("join_referential_integrity").map((t) => [t.table, t.filter])).toEqual([
      ["shop.orders", F],
      ["shop.customers", CUSTOMERS_REACH],
    ]);
  });

  it("multi-hop reach: the second hop's table is read only where the first hop's rows point", () => {
    expect(Object.fromEntries(reachFilters(ORDERS))).toEqual({
      "shop.orders": F,
      "shop.customers": CUSTOMERS_REACH,
      "geo.regions": REGIONS_REACH,
    });
    expect(byRule("dimension_not_null").find((t) => t.table === "geo.regions")!.filter).toBe(REGIONS_REACH);
    expect(byRule("join_key_unique").map((t) => [t.table, t.filter])).toEqual([
      ["shop.customers", CUSTOMERS_REACH],
      ["geo.regions", REGIONS_REACH],
    ]);
  });

  it("an expression measure gets the NULL / finite / non-negative family on the expression", () => {
    expect(byRule("measure_not_null")).toMatchObject([
      {
        check: "amount - fee IS NOT NULL",
        probe: { violation: "isNull((amount - fee))" },
        columns: [{ column: "amount" }, { column: "fee" }],
      },
    ]);
    expect(byRule("measure_finite")).toMatchObject([{ probe: { violation: "isNaN((amount - fee)) OR isInfinite((amount - fee))" } }]);
    // Judged amount-like by the measure's name, as the expression has none.
    expect(byRule("measure_non_negative")).toMatchObject([{ confidence: "medium", probe: { violation: "(amount - fee) < 0" } }]);
    const constant = structured({ measures: [{ alias: "rows", function: "Sum", column: null, expr: "1", expr_columns: [] }] });
    expect(inferTests(constant, []).filter((t) => t.rule.startsWith("measure_"))).toEqual([]);
  });

  it("filter columns: NULLs counted over every row, unless the filter itself tests them for NULL", () => {
    expect(byRule("filter_column_not_null")).toMatchObject([
      { severity: "MEDIUM", confidence: "medium", filter: null, probe: { violation: "isNull(`status`)" } },
    ]);
    expect(handlesNull("listing_id IS NOT NULL", "listing_id")).toBe(true);
    expect(handlesNull("ifNull(`x`, 0) > 1", "x")).toBe(true);
    expect(handlesNull("status = 'x'", "status")).toBe(false);
    const notNull = structured({ filter: "listing_id IS NOT NULL", filter_columns: ["listing_id"] });
    expect(inferTests(notNull, []).filter((t) => t.rule === "filter_column_not_null")).toEqual([]);
  });

  it("declared accepted values: every row (the filter would hide exactly the unexpected ones), NULLs left to dimension_not_null", () => {
    expect(byRule("dimension_accepted_values")).toMatchObject([
      {
        severity: "MEDIUM",
        confidence: "high",
        filter: null,
        check: "kind IN ('new', 'returning')",
        probe: { violation: "isNotNull(`kind`) AND toString(`kind`) NOT IN ('new', 'returning')" },
      },
    ]);
  });

  it("dbt column tests run as dbt_* rules on the rows the metric reads; severity warn never fails", () => {
    expect(byRule("dbt_unique")).toMatchObject([
      { severity: "HIGH", table: "shop.orders", filter: F, probe: { type: "duplicate_keys", key: "`id`" } },
    ]);
    expect(byRule("dbt_relationships")).toMatchObject([
      {
        severity: "LOW",
        table: "shop.customers",
        filter: CUSTOMERS_REACH,
        probe: { violation: "isNotNull(`region_id`) AND toString(`region_id`) NOT IN (SELECT toString(`id`) FROM `geo`.`regions`)" },
      },
    ]);
    expect(byRule("dbt_accepted_values")).toMatchObject([{ table: "shop.orders", filter: null }]);
  });
});
