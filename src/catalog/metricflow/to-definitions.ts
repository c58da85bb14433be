// MetricFlow metrics -> our metric definitions. simple and cumulative metrics (and
// conversion metrics over one semantic model) become structured metrics on their measure's
// model; ratio and derived metrics become derived metrics over their input metrics. What
// MetricFlow means beyond that (windows, offsets, fill_nulls_with...) is kept in `metricflow`.
import { segmentProblem } from "../cross-checks.js";
import { filterProblem } from "../filter-check.js";
import { METRIC_NAME } from "../metric-schema.js";
import { isIdentifier } from "../../sql/identifiers.js";
import type {
  DerivedMetricDefinition,
  DimensionDefinition,
  JoinDefinition,
  MeasureDefinition,
  StructuredMetricDefinition,
} from "../types.js";
import { MEASURE_FUNCTION } from "./aggregations.js";
import { defaultHops, type JoinGraph } from "./join-graph.js";
import type { MetricSource } from "./metric-filter.js";
import { renderFilter } from "./render-filter.js";
import { templates } from "./schema-common.js";
import type { Hop, MfMeasure, MfMetricInput, MfMetricMeta, SemanticModel } from "./types.js";

/** A problem with one metric; `unsupported` marks a construct this reader does not handle yet. */
export class MetricProblem extends Error {
  constructor(
    message: string,
    readonly unsupported: boolean,
  ) {
    super(message);
  }
}

export interface Project {
  graph: JoinGraph;
  /** measure name -> its model and definition */
  measures: ReadonlyMap<string, { model: SemanticModel; measure: MfMeasure }>;
  /** names of semantic models that failed to read: their measures are "invalid", not "unknown" */
  brokenMeasures: ReadonlySet<string>;
  /** simple/cumulative metric name -> its measure and filter templates (for Metric() and ratio/derived input filters) */
  metricMeasures: ReadonlyMap<string, { measure: string; filters: string[] }>;
  /** metrics that failed their schema: a Metric() filter on one says so instead of rendering it half-read */
  invalidMetrics: ReadonlySet<string>;
  /** what a metric compiles without (a declared timestamp it cannot use...): said, never silent */
  warn: (file: string, message: string) => void;
}

/**
 * Measures and dimensions become aliases in the SQL we generate and names the API and the pages
 * take back (anomaly feedback names its measure; src/api/schemas.ts): a name outside the
 * identifier pattern would compile into a metric whose "Mark as expected" can never succeed.
 */
function identifierName(kind: "measure" | "dimension", name: string): void {
  if (!isIdentifier(name)) {
    throw new MetricProblem(
      `${kind} ${JSON.stringify(name)} is not an identifier ([A-Za-z_][A-Za-z0-9_]*, at most 128 characters): rename it`,
      false,
    );
  }
}

function lookupMeasure(project: Project, name: string, where: string): { model: SemanticModel; measure: MfMeasure } {
  const found = project.measures.get(name);
  if (found) return found;
  if (project.brokenMeasures.has(name))
    throw new MetricProblem(`${where}: measure ${name} is in an invalid semantic model (see its errors)`, false);
  throw new MetricProblem(`${where}: unknown measure ${name}`, false);
}

function toMeasure(measure: MfMeasure): MeasureDefinition {
  // count(1) and sum(1) over a constant are row counts: there is no column to test.
  const percentile = measure.agg_params?.percentile ?? undefined;
  return {
    alias: measure.name,
    function: MEASURE_FUNCTION[measure.agg],
    column: measure.column,
    expr: measure.expr,
    ...(percentile === undefined ? {} : { percentile }),
  };
}

function joinOf(hop: Hop): JoinDefinition {
  return {
    table: hop.to.table,
    type: "left",
    from: hop.from.table,
    column: hop.from_column,
    references: hop.to_column,
    relationship: hop.relationship,
  };
}

/** A simple/cumulative metric as `{{ Metric(name) }}` computes it: its model, measure and rendered filter. */
function metricSource(project: Project, name: string, visiting: ReadonlySet<string>): MetricSource | null {
  if (project.invalidMetrics.has(name))
    throw new MetricProblem(`Metric('${name}') in a filter: ${name} is invalid (see its errors)`, false);
  const entry = project.metricMeasures.get(name);
  const found = entry === undefined ? undefined : project.measures.get(entry.measure);
  if (entry === undefined || found === undefined) return null;
  if (visiting.has(name)) throw new MetricProblem(`Metric('${name}') in a filter refers back to itself`, false);
  const aggTime = found.measure.agg_time_dimension ?? found.model.agg_time_dimension;
  const filter = renderAll(project, found.model, aggTime, entry.filters, new Set([...visiting, name])).sql;
  return { model: found.model, measure: found.measure, filter };
}

/** Renders the filters against the model; combined with AND. `visiting`: metrics whose filter is being rendered (Metric() cycles). */
function renderAll(
  project: Project,
  model: SemanticModel,
  aggTime: string | null,
  templates: string[],
  visiting: ReadonlySet<string> = new Set(),
): { sql: string | null; hops: Hop[][]; dimensions: DimensionDefinition[] } {
  const parts: string[] = [];
  const hops: Hop[][] = [];
  const dimensions: DimensionDefinition[] = [];
  const metric = (name: string) => metricSource(project, name, visiting);
  for (const template of templates) {
    const result = renderFilter(template, { graph: project.graph, model, aggTimeDimension: aggTime, metric });
    if (!result.ok) throw new MetricProblem(`filter ${JSON.stringify(template)}: ${result.problem}`, result.unsupported);
    parts.push(result.sql);
    hops.push(...result.hops);
    for (const { hops: path, dimension } of result.dimensions) {
      const name = `${path.map((h) => h.entity).join("__")}__${dimension.name}`;
      if (!dimensions.some((d) => d.name === name))
        dimensions.push({ name, column: dimension.column, expr: dimension.expr, table: path[path.length - 1]!.to.table });
    }
  }
  const sql = parts.length === 0 ? null : parts.length === 1 ? parts[0]! : parts.map((p) => `(${p})`).join(" AND ");
  if (sql !== null) {
    const problem = filterProblem(sql);
    if (problem !== null) throw new MetricProblem(`filter ${JSON.stringify(sql)} ${problem}`, false);
  }
  return { sql, hops, dimensions };
}

/** What every metric definition takes from the MetricFlow metric. */
export interface MetricHead {
  name: string;
  description: string | null;
  file: string;
  /** `config.meta` as written; undefined when absent */
  meta: MfMetricMeta | undefined;
}

export interface StructuredInput extends MetricHead {
  measures: string[];
  filters: string[];
  metricflow: Record<string, unknown>;
}

export function structuredDefinition(project: Project, input: StructuredInput): StructuredMetricDefinition {
  const found = input.measures.map((m, i) => lookupMeasure(project, m, `type_params.measure${input.measures.length > 1 ? `[${i}]` : ""}`));
  const model = found[0]!.model;
  if (found.some((f) => f.model !== model)) {
    throw new MetricProblem(
      `measures from two semantic models (${[...new Set(found.map((f) => f.model.name))].join(", ")}) in one metric`,
      true,
    );
  }
  for (const { measure } of found) identifierName("measure", measure.name);
  const first = found[0]!.measure;
  const aggTime = first.agg_time_dimension ?? model.agg_time_dimension;
  const rendered = renderAll(project, model, aggTime, input.filters, new Set([input.name]));

  const joins: JoinDefinition[] = [];
  const joined = new Set<string>([model.table]);
  for (const hop of [...defaultHops(project.graph, model), ...rendered.hops.flat()]) {
    if (joined.has(hop.to.table) || !joined.has(hop.from.table)) continue; // one join per table; a hop needs its start joined
    joined.add(hop.to.table);
    joins.push(joinOf(hop));
  }
  const timeDimension = aggTime === null ? undefined : model.dimensions.find((d) => d.name === aggTime);
  const label = `${input.file}: metric ${JSON.stringify(input.name)}`;
  if (aggTime !== null && timeDimension === undefined)
    project.warn(
      input.file,
      `${label}: agg_time_dimension ${aggTime} is no dimension of semantic model ${model.name}: no timestamp, so no time-based rules`,
    );
  else if (timeDimension !== undefined && timeDimension.type !== "time")
    project.warn(input.file, `${label}: agg_time_dimension ${aggTime} is a categorical dimension: no timestamp, so no time-based rules`);
  // Our anomaly settings in MetricFlow: config.meta.metric_reliability.anomalies, the same block as ours.
  const anomalies = input.meta?.metric_reliability?.anomalies;
  // A time dimension or entity defined by `expr` is the timestamp or key as that expression.
  const timestamp = timeDimension === undefined || timeDimension.type !== "time" ? null : (timeDimension.column ?? timeDimension.expr);
  if (anomalies !== undefined && anomalies.enabled !== false && timestamp === null)
    throw new MetricProblem("config.meta.metric_reliability.anomalies: needs an agg_time_dimension (or enabled: false)", false);
  const primary = model.entities.find((e) => e.type === "primary");
  const primaryKey = primary === undefined ? null : (primary.column ?? primary.expr);
  const own: DimensionDefinition[] = model.dimensions.map((d) => ({ name: d.name, column: d.column, expr: d.expr }));
  const dimensions = [
    ...own,
    ...rendered.dimensions.filter((d) => d.table !== undefined && joined.has(d.table) && !own.some((o) => o.name === d.name)),
  ];
  for (const d of dimensions) identifierName("dimension", d.name);
  for (const name of anomalies?.segments ?? []) {
    const problem = segmentProblem(name, model.table, dimensions);
    if (problem !== null) throw new MetricProblem(`config.meta.metric_reliability.anomalies.segments: ${problem}`, false);
  }
  return {
    kind: "structured",
    name: input.name,
    description: input.description,
    datasource: "default",
    table: model.table,
    primary_key: primaryKey,
    timestamp,
    freshness_seconds: null,
    filter: rendered.sql,
    measures: found.map((f) => toMeasure(f.measure)),
    dimensions,
    joins,
    tolerances: {},
    declared_tests: [],
    ...(anomalies === undefined ? {} : { anomalies: { ...anomalies } }),
    source: { format: "metricflow", file: input.file },
    metricflow: {
      semantic_model: model.name,
      ...(model.primary_entity === null ? {} : { primary_entity: model.primary_entity }),
      ...(input.filters.length > 0 ? { filter: input.filters } : {}),
      agg_time_dimension: aggTime,
      dimensions: model.dimensions.map((d) => ({
        name: d.name,
        type: d.type,
        ...(d.granularity === null ? {} : { time_granularity: d.granularity }),
      })),
      entities: model.entities.map((e) => ({
        name: e.name,
        type: e.type,
        ...(e.column !== null ? { column: e.column } : { expr: e.expr }),
      })),
      measures: found.map(({ measure }) => ({
        name: measure.name,
        agg: measure.agg,
        ...(measure.agg_params ? { agg_params: measure.agg_params } : {}),
        ...(measure.non_additive_dimension ? { non_additive_dimension: measure.non_additive_dimension } : {}),
      })),
      ...input.metricflow,
    },
    file: input.file,
    ...(input.meta === undefined ? {} : { meta: input.meta }),
  };
}

/** Checks an input metric reference and renders its filter against the input's own model. */
function metricInput(project: Project, input: MfMetricInput, where: string): { name: string; kept: Record<string, unknown> } {
  const filters = templates(input.filter);
  const kept: Record<string, unknown> = { ...input };
  if (filters.length > 0) {
    if (project.invalidMetrics.has(input.name))
      throw new MetricProblem(`${where}: metric ${input.name} is invalid (see its errors)`, false);
    const measureName = project.metricMeasures.get(input.name)?.measure;
    if (measureName === undefined)
      throw new MetricProblem(`${where}.filter on ${input.name}, which is not a simple or cumulative metric`, true);
    const { model, measure } = lookupMeasure(project, measureName, where);
    kept.filter_sql = renderAll(project, model, measure.agg_time_dimension ?? model.agg_time_dimension, filters).sql;
  }
  return { name: input.name, kept };
}

export interface DerivedInput extends MetricHead {
  type: "ratio" | "derived";
  /** each input metric with the field path that names it in problems */
  inputs: { input: MfMetricInput; where: string }[];
  expression: string;
  /** what MetricFlow means beyond the inputs (type, time_granularity...) */
  metricflow: Record<string, unknown>;
}

export function derivedDefinition(project: Project, input: DerivedInput): DerivedMetricDefinition {
  const inputs = input.inputs.map(({ input: metric, where }) => metricInput(project, metric, where));
  for (const { name } of inputs)
    if (!METRIC_NAME.test(name)) throw new MetricProblem(`input ${JSON.stringify(name)} is not a metric name`, false);
  return {
    kind: "derived",
    name: input.name,
    description: input.description,
    datasource: "default",
    // The same input twice (bookings and bookings 14 days ago) is one dependency.
    inputs: [...new Set(inputs.map((i) => i.name))],
    expression: input.expression,
    source: { format: "metricflow", file: input.file },
    metricflow: { type: input.type, expr: input.expression, inputs: inputs.map((i) => i.kept), ...input.metricflow },
    file: input.file,
    ...(input.meta === undefined ? {} : { meta: input.meta }),
  };
}
