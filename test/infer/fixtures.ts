// Hand-built IR values for the inference tests.
import type { MetricIR } from "../../src/compile/ir.js";

export function structured(overrides: Partial<MetricIR> = {}): MetricIR {
  return {
    name: "gross_revenue",
    kind: "structured",
    datasource: "default",
    measures: [{ alias: "revenue", function: "Sum", column: "amount" }],
    dimensions: [],
    joins: [],
    description: null,
    table: "shop.orders",
    filter: null,
    filter_columns: [],
    timestamp: null,
    freshness_seconds: null,
    inputs: [],
    tolerances: {},
    file: "metrics/shop.yaml",
    ...overrides,
  };
}

export function derived(name: string, inputs: string[]): MetricIR {
  return { ...structured({ name, kind: "derived", measures: [], table: null, inputs }) };
}
