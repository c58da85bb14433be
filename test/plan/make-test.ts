// Hand-built InferredTest values for plan/evaluate tests (the inference rules are not used here).
import type { InferredTest, Probe } from "../../src/infer/types.js";
import type { WarehouseSchema } from "../../src/plan/types.js";

export function makeTest(overrides: Partial<InferredTest> & { rule: string; probe: Probe }): InferredTest {
  const table = overrides.table ?? "shop.orders";
  const filter = overrides.filter === undefined ? null : overrides.filter;
  const check = overrides.check ?? overrides.rule;
  return {
    key: overrides.key ?? `default|${table}|${filter ?? ""}|${overrides.rule}|${check}`,
    metric: "gross_revenue",
    name: overrides.rule.replace(/_/g, " "),
    check,
    severity: "HIGH",
    confidence: "high",
    tolerance: 0,
    datasource: "default",
    table,
    filter,
    columns: [],
    filter_columns: [],
    sample_sql: `SELECT * FROM ${table} LIMIT 10`,
    ...overrides,
  };
}

export const col = (column: string, table = "shop.orders") => ({ table, column });

export const SCHEMA: WarehouseSchema = {
  default: {
    "shop.orders": {
      id: "UInt64",
      amount: "Nullable(Float64)",
      price: "Decimal(18, 2)",
      country: "LowCardinality(String)",
      customer_id: "UInt64",
      created_at: "DateTime",
      status: "String",
    },
    "shop.customers": { id: "UInt64", segment: "String" },
  },
};
