// One parsed MetricFlow metric -> our metric definition, by metric type. What MetricFlow
// means beyond what we evaluate (time_granularity, windows, fill_nulls_with...) is kept in
// the definition's `metricflow`.
import type { MetricDefinition } from "../types.js";
import { assertUnreachable } from "../unreachable.js";
import { templates } from "./schema-common.js";
import { derivedDefinition, MetricProblem, structuredDefinition, type MetricHead, type Project } from "./to-definitions.js";
import type { MfMeasureInput, MfMetric, MfMetricInput } from "./types.js";

/** A conversion measure's name; a filter on one is not supported. */
function conversionMeasureName(measure: string | { name: string; filter?: unknown }, where: string): string {
  if (typeof measure === "string") return measure;
  if (measure.filter !== undefined) throw new MetricProblem(`${where}.filter (a filter on a conversion measure)`, true);
  return measure.name;
}

/** MetricFlow's per-measure options of a simple or cumulative metric. */
function measureOptions(measure: MfMeasureInput): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  if (measure.fill_nulls_with !== undefined) kept.fill_nulls_with = measure.fill_nulls_with;
  if (measure.join_to_timespine !== undefined) kept.join_to_timespine = measure.join_to_timespine;
  if (measure.alias !== undefined) kept.alias = measure.alias;
  return kept;
}

export function readMetric(project: Project, metric: MfMetric, file: string): MetricDefinition {
  const head: MetricHead = {
    name: metric.name,
    description: metric.description?.trim() ?? null,
    file,
    meta: metric.config?.meta ?? undefined,
  };
  const filters = templates(metric.filter);
  const kept: Record<string, unknown> = { type: metric.type };
  if (metric.time_granularity !== undefined) kept.time_granularity = metric.time_granularity;
  if (metric.create_metric === true) kept.create_metric = true;

  switch (metric.type) {
    case "ratio":
    case "derived": {
      if (filters.length > 0 && metric.type === "derived")
        throw new MetricProblem("filter on a derived metric (it would apply to every input)", true);
      if (metric.type === "ratio") {
        // MetricFlow applies a ratio's own filter to its numerator and its denominator alike.
        const withFilter = (input: MfMetricInput): MfMetricInput =>
          filters.length === 0 ? input : { ...input, filter: [...templates(input.filter), ...filters] };
        const numerator = withFilter(metric.type_params.numerator);
        const denominator = withFilter(metric.type_params.denominator);
        if (filters.length > 0) kept.filter = filters;
        return derivedDefinition(project, {
          ...head,
          type: "ratio",
          inputs: [
            { input: numerator, where: "type_params.numerator" },
            { input: denominator, where: "type_params.denominator" },
          ],
          expression: `${numerator.name} / ${denominator.name}`,
          metricflow: kept,
        });
      }
      return derivedDefinition(project, {
        ...head,
        type: "derived",
        inputs: metric.type_params.metrics.map((input, i) => ({ input, where: `type_params.metrics[${i}]` })),
        expression: metric.type_params.expr,
        metricflow: kept,
      });
    }
    case "conversion": {
      const conversion = metric.type_params.conversion_type_params;
      const base = conversionMeasureName(conversion.base_measure, "type_params.conversion_type_params.base_measure");
      const converted = conversionMeasureName(conversion.conversion_measure, "type_params.conversion_type_params.conversion_measure");
      return structuredDefinition(project, {
        ...head,
        measures: [...new Set([base, converted])],
        filters,
        metricflow: { ...kept, conversion },
      });
    }
    case "simple":
    case "cumulative": {
      const { measure } = metric.type_params;
      Object.assign(kept, measureOptions(measure));
      if (metric.type === "cumulative") {
        const params = metric.type_params;
        if (params.window !== undefined) kept.window = params.window;
        if (params.grain_to_date !== undefined) kept.grain_to_date = params.grain_to_date;
        for (const [key, v] of Object.entries(params.cumulative_type_params ?? {})) if (key !== "measure") kept[key] = v;
      }
      return structuredDefinition(project, {
        ...head,
        measures: [measure.name],
        filters: [...filters, ...templates(measure.filter)],
        metricflow: kept,
      });
    }
    default:
      return assertUnreachable(metric);
  }
}
