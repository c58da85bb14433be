// `{{ Metric('bookings', group_by=['listing']) }} > 2`: the metric computed per entity, as a
// subquery on the metric's own model. The condition keeps the base rows whose entity passes:
// `toString(listing_id) IN (SELECT toString(listing_id) FROM bookings WHERE <its filter>
//  GROUP BY listing_id HAVING sum(1) > 2)`. An entity without any row of the metric has no
// value, which no condition accepts, as in MetricFlow's left join of the per-entity metric.
import { quoteTable } from "../../sql/identifiers.js";
import { assertUnreachable } from "../unreachable.js";
import type { TemplateCall } from "./filter-template.js";
import { valueSql } from "./value-sql.js";
import type { MfMeasure, SemanticModel } from "./types.js";

export interface MetricSource {
  model: SemanticModel;
  measure: MfMeasure;
  /** the metric's own filter, rendered on its model (null: none) */
  filter: string | null;
}

/** The measure's aggregate in ClickHouse (classic functions: 18.16 and current releases). */
export function aggregateSql(measure: MfMeasure): string {
  const v = valueSql(measure);
  switch (measure.agg) {
    case "sum":
      return `sum(${v})`;
    case "sum_boolean":
      return `sum(toUInt8(${v}))`;
    case "count":
      return `count(${v})`;
    case "count_distinct":
      return `uniqExact(${v})`;
    case "average":
      return `avg(${v})`;
    case "min":
      return `min(${v})`;
    case "max":
      return `max(${v})`;
    case "median":
      return `quantile(0.5)(${v})`;
    case "percentile":
      return `quantile(${measure.agg_params?.percentile ?? 0.5})(${v})`;
    default:
      return assertUnreachable(measure.agg);
  }
}

export type MetricConditionResult = { sql: string } | { problem: string; unsupported: boolean };

/** `conjunct` holds exactly one call, `call`, a Metric(); the rest is a comparison on its value. */
export function metricCondition(
  conjunct: string,
  call: TemplateCall,
  base: SemanticModel,
  source: MetricSource | null,
): MetricConditionResult {
  const name = call.positional[0];
  if (name === undefined) return { problem: "Metric() without a name", unsupported: false };
  const groupBy = call.keywords.group_by ?? [];
  if (groupBy.length !== 1 || groupBy[0]!.includes("__") || groupBy[0] === "metric_time") {
    return {
      problem: `Metric() in a filter grouped by ${JSON.stringify(groupBy)} (only one entity, without metric_time)`,
      unsupported: true,
    };
  }
  if (source === null)
    return { problem: `Metric('${name}') in a filter: ${name} is not a simple or cumulative metric of this project`, unsupported: true };
  const entity = groupBy[0]!;
  const own = base.entities.find((e) => e.name === entity);
  const theirs = source.model.entities.find((e) => e.name === entity);
  if (!own || !theirs)
    return {
      problem: `Metric('${name}') grouped by ${entity}: ${entity} is not an entity of both ${base.name} and ${source.model.name}`,
      unsupported: false,
    };
  if (own.column === null || theirs.column === null)
    return { problem: `Metric() grouped by entity ${entity} whose expr is an SQL expression`, unsupported: true };
  const having = conjunct.replace(call.text, () => aggregateSql(source.measure));
  const where = source.filter === null ? "" : ` WHERE ${source.filter}`;
  const sql = `toString(${own.column}) IN (SELECT toString(${theirs.column}) FROM ${quoteTable(source.model.table)}${where} GROUP BY ${theirs.column} HAVING ${having})`;
  return { sql };
}
