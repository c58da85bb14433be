// The latest spec's cumulative and conversion metrics are built on metrics (`input_metric`,
// `base_metric`, `conversion_metric`) where the legacy spec names measures. Once every simple
// metric is read, each such input becomes its metric's measure, with that metric's filter, so
// both specs reach the same measure and rows.
import type { MfMetric } from "./types.js";

type MetricMeasures = ReadonlyMap<string, { measure: string; filters: string[] }>;

/** The metric with its metric inputs swapped for measures; a name that is a measure stays one. */
export function resolveMetricInputs(
  metric: MfMetric,
  metricMeasures: MetricMeasures,
  measures: ReadonlySet<string>,
): { metric: MfMetric } | { problem: string } {
  if (metric.type === "cumulative") {
    const params = metric.type_params as typeof metric.type_params & { input_metric?: { name: string; filter?: unknown } };
    if (params.input_metric === undefined) return { metric };
    const { input_metric: input, ...rest } = params;
    const source = metricMeasures.get(input.name);
    if (source === undefined) return { problem: `input_metric: ${input.name} is not a simple metric of this project` };
    const own = input.filter === undefined || input.filter === null ? [] : Array.isArray(input.filter) ? input.filter : [input.filter];
    const filters = [...source.filters, ...(own as string[])];
    const measure = { ...rest.measure, name: source.measure, ...(filters.length === 0 ? {} : { filter: filters }) };
    return { metric: { ...metric, type_params: { ...rest, measure, input_metric: input.name } } as MfMetric };
  }
  if (metric.type === "conversion") {
    const conversion = { ...metric.type_params.conversion_type_params };
    for (const key of ["base_measure", "conversion_measure"] as const) {
      const value = conversion[key];
      const name = typeof value === "string" ? value : value.name;
      if (measures.has(name)) continue;
      const source = metricMeasures.get(name);
      if (source === undefined) continue; // "unknown measure", named by the definition
      // A filter on a conversion input is not supported: kept, so the definition names it.
      conversion[key] = source.filters.length === 0 ? source.measure : { name: source.measure, filter: source.filters };
    }
    return { metric: { ...metric, type_params: { ...metric.type_params, conversion_type_params: conversion } } };
  }
  return { metric };
}
