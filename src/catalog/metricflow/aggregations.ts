// MetricFlow's nine aggregations, listed once: the schema's enum, and the one exhaustive
// mapping to our measure functions (a new aggregation fails to compile until it is mapped).
import type { MeasureFunction } from "../types.js";

/** In the order the "expected one of" message lists them. */
export const MF_AGGREGATIONS = ["sum", "sum_boolean", "count", "count_distinct", "average", "min", "max", "median", "percentile"] as const;
export type MfAgg = (typeof MF_AGGREGATIONS)[number];

export const MEASURE_FUNCTION: Record<MfAgg, MeasureFunction> = {
  sum: "Sum",
  sum_boolean: "SumBoolean",
  count: "Count",
  count_distinct: "CountDistinct",
  average: "Avg",
  min: "Min",
  max: "Max",
  median: "Median",
  percentile: "Percentile",
};
