import { describe, expect, it } from "vitest";
import { findAffectedMetrics, tableMatches } from "../../src/services/affected-by.js";
import { derived, ir } from "./fixtures.js";

const join = (table: string) => ({
  table,
  type: "left" as const,
  left_column: "customer_id",
  right_column: "id",
  relationship: "many_to_one" as const,
});

const catalogue = [
  ir({
    name: "gross_revenue",
    table: "shop.orders",
    joins: [join("shop.customers")],
    dimensions: [{ name: "segment", source_table: "shop.customers", column: "segment" }],
  }),
  ir({ name: "order_count", table: "shop.orders" }),
  ir({ name: "refunds", table: "shop.refunds", dimensions: [{ name: "region", source_table: "geo.regions", column: "region" }] }),
  ir({ name: "customer_count", table: "shop.customers" }),
  derived("refund_rate", ["refunds", "gross_revenue"]),
  derived("refund_rate_index", ["refund_rate"]),
];

describe("findAffectedMetrics", () => {
  it("reports base tables", () => {
    const out = findAffectedMetrics(catalogue, "shop.orders");
    expect(out.table).toBe("shop.orders");
    expect(out.affected_metrics).toEqual([
      { metric_name: "gross_revenue", relationship: "base_table" },
      { metric_name: "order_count", relationship: "base_table" },
      { metric_name: "refund_rate", relationship: "derived" },
      { metric_name: "refund_rate_index", relationship: "derived" },
    ]);
    expect(out.count).toBe(4);
  });

  it("prefers join over dimension, and base_table over join", () => {
    const out = findAffectedMetrics(catalogue, "shop.customers");
    expect(out.affected_metrics).toEqual([
      { metric_name: "gross_revenue", relationship: "join" },
      { metric_name: "customer_count", relationship: "base_table" },
      { metric_name: "refund_rate", relationship: "derived" },
      { metric_name: "refund_rate_index", relationship: "derived" },
    ]);
  });

  it("reports dimension-only tables", () => {
    const out = findAffectedMetrics(catalogue, "geo.regions");
    expect(out.affected_metrics.map((m) => [m.metric_name, m.relationship])).toEqual([
      ["refunds", "dimension"],
      ["refund_rate", "derived"],
      ["refund_rate_index", "derived"],
    ]);
  });

  it("returns an empty list for an unknown table", () => {
    expect(findAffectedMetrics(catalogue, "shop.nothing")).toEqual({ table: "shop.nothing", affected_metrics: [], count: 0 });
  });

  it("terminates on derived input cycles", () => {
    const out = findAffectedMetrics([derived("a", ["b"]), derived("b", ["a"]), ir({ name: "c" })], "shop.orders");
    expect(out.affected_metrics).toEqual([{ metric_name: "c", relationship: "base_table" }]);
  });

  it("matches a bare table name in any database, a qualified one exactly", () => {
    expect(tableMatches("shop.orders", "orders")).toBe(true);
    expect(tableMatches("shop.orders", "shop.orders")).toBe(true);
    expect(tableMatches("shop.orders", "other.orders")).toBe(false);
    expect(tableMatches("shop.orders", "Orders")).toBe(false);
    expect(tableMatches(null, "orders")).toBe(false);
    expect(findAffectedMetrics(catalogue, "refunds").count).toBe(3);
  });
});
