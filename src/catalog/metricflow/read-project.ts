// A dbt / MetricFlow project, gathered from every file of that form in METRICS_DIR, ->
// metric definitions, declared (dbt) tests per table, errors and warnings. Metrics find their
// measures in semantic models of any file, so the whole project is read before any metric.
import { METRIC_NAME } from "../metric-schema.js";
import type { CatalogError, CatalogWarning, DeclaredTest, MetricDefinition } from "../types.js";
import { readDbtTests } from "./dbt-tests.js";
import { buildJoinGraph } from "./join-graph.js";
import { readSemanticModel } from "./semantic-model.js";
import { derivedDefinition, filterTemplates, MetricProblem, structuredDefinition, type Project } from "./to-definitions.js";
import type { MfMeasure, SemanticModel } from "./types.js";

export interface MetricFlowDocument {
  file: string;
  index: number;
  document: unknown;
}

export interface MetricFlowResult {
  metrics: MetricDefinition[];
  errors: CatalogError[];
  warnings: CatalogWarning[];
  /** metric names that were rejected (so derived inputs say "invalid", not "unknown") */
  failed: string[];
  /** database.table -> dbt tests declared on it */
  declaredTests: Map<string, DeclaredTest[]>;
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const METRIC_TYPES = new Set(["simple", "ratio", "derived", "cumulative", "conversion"]);

interface Located<T> {
  file: string;
  value: T;
}

/** dbt's `config: { enabled: false }` switches a resource off: it is not read. */
const disabled = (value: unknown): boolean => isMapping(value) && isMapping(value.config) && value.config.enabled === false;

/** `semantic_models: [...]` (dbt model files) and `semantic_model: {...}` (one per document). */
function collect(documents: readonly MetricFlowDocument[], list: string, single: string): Located<unknown>[] {
  const out: Located<unknown>[] = [];
  for (const { file, document } of documents) {
    if (!isMapping(document)) continue;
    const many = document[list];
    if (Array.isArray(many)) for (const value of many) if (!disabled(value)) out.push({ file, value });
    if (document[single] !== undefined && !disabled(document[single])) out.push({ file, value: document[single] });
  }
  return out;
}

export function readMetricFlowProject(documents: readonly MetricFlowDocument[], options: { metricflowDatabase: string }): MetricFlowResult {
  const database = options.metricflowDatabase;
  const errors: CatalogError[] = [];
  const warnings: CatalogWarning[] = [];
  const failed: string[] = [];
  const declaredTests = new Map<string, DeclaredTest[]>();
  const fileError = (file: string, message: string) => errors.push({ metric: null, file, message: `${file}: ${message}` });

  for (const { file, document } of documents) {
    if (!isMapping(document)) {
      fileError(file, "expected a mapping (semantic_models:, metrics:, models:...)");
      continue;
    }
    const { tests, warnings: testWarnings } = readDbtTests(document, file, database);
    warnings.push(...testWarnings);
    for (const test of tests) {
      const list = declaredTests.get(test.table) ?? [];
      list.push(test);
      declaredTests.set(test.table, list);
    }
  }

  // Semantic models, then the measure index.
  const models: SemanticModel[] = [];
  const brokenMeasures = new Set<string>();
  const modelNames = new Set<string>();
  for (const { file, value } of collect(documents, "semantic_models", "semantic_model")) {
    if (!isMapping(value)) {
      fileError(file, "semantic model: expected a mapping");
      continue;
    }
    const label = `semantic model ${JSON.stringify(typeof value.name === "string" ? value.name : "?")}`;
    const { model, problems } = readSemanticModel(value, file, database);
    for (const problem of problems) fileError(file, `${label}: ${problem}`);
    if (!model) {
      for (const m of Array.isArray(value.measures) ? value.measures : [])
        if (isMapping(m) && typeof m.name === "string") brokenMeasures.add(m.name);
      continue;
    }
    if (modelNames.has(model.name)) {
      fileError(file, `${label}: duplicate semantic model name`);
      continue;
    }
    modelNames.add(model.name);
    models.push(model);
  }
  const measures = new Map<string, { model: SemanticModel; measure: MfMeasure }>();
  for (const model of models) {
    for (const measure of model.measures) {
      if (measures.has(measure.name)) {
        fileError(
          model.file,
          `semantic model ${JSON.stringify(model.name)}: measure ${measure.name}: already defined in semantic model ${measures.get(measure.name)!.model.name}`,
        );
        brokenMeasures.add(measure.name);
        measures.delete(measure.name);
      } else if (!brokenMeasures.has(measure.name)) measures.set(measure.name, { model, measure });
    }
  }

  // Metrics: declared ones, plus one per measure with create_metric: true.
  const declared = collect(documents, "metrics", "metric");
  const entries: Located<Record<string, unknown>>[] = [];
  for (const { file, value } of declared) {
    if (isMapping(value)) entries.push({ file, value });
    else fileError(file, "metric: expected a mapping");
  }
  const declaredNames = new Set(entries.map((e) => e.value.name));
  for (const { model, measure } of measures.values()) {
    if (measure.create_metric && !declaredNames.has(measure.name)) {
      entries.push({
        file: model.file,
        value: {
          name: measure.name,
          description: measure.description,
          type: "simple",
          type_params: { measure: measure.name },
          create_metric: true,
        },
      });
    }
  }
  const metricMeasures = new Map<string, { measure: string; filters: string[] }>();
  for (const { value } of entries) {
    const params = isMapping(value.type_params) ? value.type_params : {};
    const measure = params.measure ?? (isMapping(params.cumulative_type_params) ? params.cumulative_type_params.measure : undefined);
    const measureName =
      typeof measure === "string" ? measure : isMapping(measure) && typeof measure.name === "string" ? measure.name : null;
    if (typeof value.name !== "string" || measureName === null || (value.type !== "simple" && value.type !== "cumulative")) continue;
    // Its filters, for `{{ Metric(name) }}` elsewhere; a malformed one is reported with the metric itself.
    const filters = [value.filter, isMapping(measure) ? measure.filter : undefined].flatMap((f) =>
      typeof f === "string" ? [f] : Array.isArray(f) ? f.filter((x): x is string => typeof x === "string") : [],
    );
    metricMeasures.set(value.name, { measure: measureName, filters });
  }

  const project: Project = { graph: buildJoinGraph(models), measures, brokenMeasures, metricMeasures };
  const metrics: MetricDefinition[] = [];
  for (const { file, value } of entries) {
    const name = typeof value.name === "string" ? value.name : null;
    const label = name === null ? "metric" : `metric ${JSON.stringify(name)}`;
    try {
      if (name === null || !METRIC_NAME.test(name)) throw new MetricProblem(`name: expected ${METRIC_NAME.source}`, false);
      metrics.push(readMetric(project, value, name, file));
    } catch (error) {
      if (!(error instanceof MetricProblem)) throw error;
      if (name !== null) failed.push(name);
      const prefix = error.unsupported ? "unsupported: " : "";
      errors.push({ metric: name, file, message: `${file}: ${label}: ${prefix}${error.message}` });
    }
  }
  return { metrics, errors, warnings, failed, declaredTests };
}

function readMetric(project: Project, value: Record<string, unknown>, name: string, file: string): MetricDefinition {
  const type = typeof value.type === "string" ? value.type.toLowerCase() : null;
  if (type === null || !METRIC_TYPES.has(type)) throw new MetricProblem(`type: expected one of ${[...METRIC_TYPES].join("|")}`, false);
  const params = isMapping(value.type_params) ? value.type_params : {};
  const description = typeof value.description === "string" ? value.description.trim() : null;
  const filters = filterTemplates(value.filter, "filter");
  const kept: Record<string, unknown> = { type };
  if (value.time_granularity !== undefined) kept.time_granularity = value.time_granularity;
  if (value.create_metric === true) kept.create_metric = true;

  if (type === "ratio" || type === "derived") {
    if (filters.length > 0) kept.filter = filters;
    if (filters.length > 0) throw new MetricProblem(`filter on a ${type} metric (it would apply to every input)`, true);
    return derivedDefinition(project, name, description, file, type, params, kept);
  }
  if (type === "conversion") {
    const conversion = isMapping(params.conversion_type_params) ? params.conversion_type_params : null;
    if (conversion === null) throw new MetricProblem("type_params.conversion_type_params: required for a conversion metric", false);
    const base = measureName(conversion.base_measure, "conversion_type_params.base_measure");
    const converted = measureName(conversion.conversion_measure, "conversion_type_params.conversion_measure");
    const { base_measure, conversion_measure, ...rest } = conversion;
    return structuredDefinition(project, {
      name,
      description,
      file,
      measures: [...new Set([base, converted])],
      filters,
      metricflow: { ...kept, conversion: { base_measure, conversion_measure, ...rest } },
    });
  }
  // simple and cumulative: one measure.
  const cumulative = isMapping(params.cumulative_type_params) ? params.cumulative_type_params : {};
  const input = params.measure ?? cumulative.measure;
  if (input === undefined) throw new MetricProblem("type_params.measure: required", false);
  const measure = typeof input === "string" ? { name: input } : isMapping(input) ? input : null;
  if (measure === null || typeof measure.name !== "string") throw new MetricProblem("type_params.measure: expected a measure name", false);
  const measureFilters = filterTemplates(measure.filter, "type_params.measure.filter");
  for (const key of ["fill_nulls_with", "join_to_timespine", "alias"]) if (measure[key] !== undefined) kept[key] = measure[key];
  if (type === "cumulative") {
    for (const key of ["window", "grain_to_date"]) if (params[key] !== undefined) kept[key] = params[key];
    for (const [key, v] of Object.entries(cumulative)) if (key !== "measure") kept[key] = v;
  }
  return structuredDefinition(project, {
    name,
    description,
    file,
    measures: [measure.name],
    filters: [...filters, ...measureFilters],
    metricflow: kept,
  });
}

function measureName(value: unknown, where: string): string {
  if (typeof value === "string") return value;
  if (isMapping(value) && typeof value.name === "string") {
    if (value.filter !== undefined) throw new MetricProblem(`${where}.filter (a filter on a conversion measure)`, true);
    return value.name;
  }
  throw new MetricProblem(`${where}: expected a measure name`, false);
}
