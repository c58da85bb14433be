// Hand-built IR values for the inference tests. Measures, dimensions and joins may leave out
// the fields that default (no expr; a join from the base table).
import type { DimensionIR, JoinIR, MeasureIR, MetricIR } from "../../src/compile/ir.js";
import type { AnomalySettingsIR } from "../../src/compile/anomaly-settings.js";

type Loose<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;
export type LooseIR = Omit<Partial<MetricIR>, "measures" | "dimensions" | "joins"> & {
  measures?: Loose<MeasureIR, "expr" | "expr_columns">[];
  dimensions?: Loose<DimensionIR, "expr" | "expr_columns">[];
  joins?: Loose<JoinIR, "from_table">[];
};

export function structured(overrides: LooseIR = {}): MetricIR {
  const { measures, dimensions, joins, ...rest } = overrides;
  const table = rest.table === undefined ? "shop.orders" : rest.table;
  return {
    name: "gross_revenue",
    kind: "structured",
    datasource: "default",
    description: null,
    table,
    primary_key: null,
    filter: null,
    filter_columns: [],
    timestamp: null,
    freshness_seconds: null,
    inputs: [],
    tolerances: {},
    declared_tests: [],
    anomalies: null,
    source: { format: "ours", file: "metrics/shop.yaml" },
    metricflow: null,
    file: "metrics/shop.yaml",
    ...rest,
    measures: (measures ?? [{ alias: "revenue", function: "Sum", column: "amount" }]).map((m) => ({ expr: null, expr_columns: [], ...m })),
    dimensions: (dimensions ?? []).map((d) => ({ expr: null, expr_columns: [], ...d })),
    joins: (joins ?? []).map((j) => ({ from_table: table ?? "", ...j })),
  };
}

export function derived(name: string, inputs: string[]): MetricIR {
  return { ...structured({ name, kind: "derived", measures: [], table: null, inputs }) };
}

/** Anomaly settings as compiled, enabled at day grain; each suite overrides what it tests. */
export function anomalySettings(overrides: Partial<AnomalySettingsIR> = {}): AnomalySettingsIR {
  return {
    enabled: true,
    grain: "day",
    training_buckets: 40,
    detection_buckets: 2,
    sensitivity: 4,
    freshness_sensitivity: 4,
    seasonality: "none",
    severity: "medium",
    holidays: null,
    exclude: [],
    segments: [],
    max_segments: 20,
    ...overrides,
  };
}
