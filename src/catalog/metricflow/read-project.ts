// A dbt / MetricFlow project, gathered from every file of that form in METRICS_DIR, ->
// metric definitions, declared (dbt) tests per table, errors and warnings. Metrics find their
// measures in semantic models of any file, so the whole project is read before any metric.
import { z } from "zod";
import { isMapping, nameOf } from "../mapping.js";
import type { CatalogError, CatalogWarning, DeclaredTest, MetricDefinition } from "../types.js";
import { readDbtTests } from "./dbt-tests.js";
import { readLatestSpec, toLegacyMetric } from "./latest-spec.js";
import { resolveMetricInputs } from "./metric-inputs.js";
import { buildJoinGraph } from "./join-graph.js";
import { readMetric } from "./read-metric.js";
import { parseMf, templates } from "./schema-common.js";
import { mfMetric } from "./schema-metric.js";
import { declaredMeasureNames, readSemanticModel } from "./semantic-model.js";
import { MetricProblem, type Project } from "./to-definitions.js";
import type { MfMeasure, MfMetric, SemanticModel } from "./types.js";

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

const resourceList = z.array(z.unknown()).nullish();
const switchedOff = z.looseObject({ config: z.looseObject({ enabled: z.literal(false) }) });

interface Located {
  file: string;
  value: unknown;
}

/** dbt's `config: { enabled: false }` switches a resource off: it is not read. */
const disabled = (value: unknown): boolean => switchedOff.safeParse(value).success;

/**
 * `semantic_models: [...]` (dbt model files) and `semantic_model: {...}` (one per document);
 * a list key that holds no list is the file's problem.
 */
function collect(
  documents: readonly MetricFlowDocument[],
  list: string,
  single: string,
  fileError: FileError,
  warn: (file: string, message: string) => void,
): Located[] {
  const out: Located[] = [];
  // Switched off on purpose, but never in silence: its metrics are not there.
  const off = (file: string, where: string, value: unknown) => {
    const name = nameOf(value);
    warn(file, `${file}: ${where}${name === null ? "" : ` (${name})`}: switched off (config.enabled: false): not read`);
  };
  for (const { file, document } of documents) {
    if (!isMapping(document)) continue;
    const many = resourceList.safeParse(document[list]);
    if (!many.success) fileError(file, `${list}: expected a list`);
    else
      (many.data ?? []).forEach((value, i) => {
        if (disabled(value)) off(file, `${list}[${i}]`, value);
        else out.push({ file, value });
      });
    if (document[single] !== undefined) {
      if (disabled(document[single])) off(file, single, document[single]);
      else out.push({ file, value: document[single] });
    }
  }
  return out;
}

type FileError = (file: string, message: string) => void;

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

  // The latest spec (semantic models under `models:`) read into the legacy shapes, beside them.
  const latest = readLatestSpec(documents);
  warnings.push(...latest.warnings);
  for (const problem of latest.problems) {
    errors.push(problem);
    if (problem.metric !== null) failed.push(problem.metric);
  }
  const warn = (file: string, message: string) => warnings.push({ file, message });
  const { models, brokenMeasures } = readModels(documents, latest.models, database, fileError, warn);
  const measures = measureIndex(models, brokenMeasures, fileError);

  // Metrics: declared ones, plus one per measure with create_metric: true; each parsed first,
  // so that filters and inputs can refer to any metric of the project.
  const entries: (Located & { problem?: string })[] = [];
  const declared = [
    ...collect(documents, "metrics", "metric", fileError, warn).map((m) => ({ ...m, onModel: false })),
    ...latest.metrics.map((m) => ({ ...m, onModel: true })),
  ];
  for (const { file, value, onModel } of declared) {
    if (!isMapping(value)) {
      fileError(file, "metric: expected a mapping");
      continue;
    }
    const read = toLegacyMetric(value, onModel);
    entries.push("metric" in read ? { file, value: read.metric } : { file, value, problem: read.problem });
  }
  const declaredNames = new Set(entries.map((e) => nameOf(e.value)));
  for (const { model, measure } of measures.values()) {
    if (measure.create_metric && !declaredNames.has(measure.name)) {
      const description = measure.description === null ? {} : { description: measure.description };
      const value = { name: measure.name, ...description, type: "simple", type_params: { measure: measure.name }, create_metric: true };
      entries.push({ file: model.file, value });
    }
  }
  const parsed = entries.map(({ file, value, problem }) => ({
    file,
    name: nameOf(value),
    result: problem === undefined ? parseMf(mfMetric, value) : { ok: false as const, problems: [problem] },
  }));
  const invalidMetrics = new Set([...failed, ...parsed.flatMap(({ name, result }) => (!result.ok && name !== null ? [name] : []))]);
  const metricMeasures = new Map<string, { measure: string; filters: string[] }>();
  const register = (metric: MfMetric) => {
    if (metric.type !== "simple" && metric.type !== "cumulative") return;
    const { measure } = metric.type_params;
    metricMeasures.set(metric.name, { measure: measure.name, filters: [...templates(metric.filter), ...templates(measure.filter)] });
  };
  for (const { result } of parsed) if (result.ok && result.value.type === "simple") register(result.value);
  // The latest spec's cumulative and conversion metrics name metrics: their measures, swapped in.
  for (const entry of parsed) {
    if (!entry.result.ok) continue;
    const resolved = resolveMetricInputs(entry.result.value, metricMeasures, new Set(measures.keys()));
    if ("problem" in resolved) entry.result = { ok: false, problems: [resolved.problem] };
    else {
      entry.result = { ok: true, value: resolved.metric };
      if (resolved.metric.type === "cumulative") register(resolved.metric);
    }
  }
  for (const { name, result } of parsed) if (!result.ok && name !== null) invalidMetrics.add(name);

  const project: Project = { graph: buildJoinGraph(models), measures, brokenMeasures, metricMeasures, invalidMetrics, warn };
  unreadElements(models, parsed, warn);
  const metrics: MetricDefinition[] = [];
  for (const { file, name, result } of parsed) {
    const label = name === null ? "metric" : `metric ${JSON.stringify(name)}`;
    const metricError = (message: string) => errors.push({ metric: name, file, message: `${file}: ${label}: ${message}` });
    if (!result.ok) {
      if (name !== null) failed.push(name);
      for (const problem of result.problems) metricError(problem);
      continue;
    }
    try {
      metrics.push(readMetric(project, result.value, file));
    } catch (error) {
      if (!(error instanceof MetricProblem)) throw error;
      failed.push(result.value.name);
      metricError(`${error.unsupported ? "unsupported: " : ""}${error.message}`);
    }
  }
  return { metrics, errors, warnings, failed, declaredTests };
}

/** The semantic models that read; the measure names of those that did not ("invalid", not "unknown"). */
function readModels(
  documents: readonly MetricFlowDocument[],
  latest: readonly Located[],
  database: string,
  fileError: FileError,
  warn: (file: string, message: string) => void,
): { models: SemanticModel[]; brokenMeasures: Set<string> } {
  const models: SemanticModel[] = [];
  const brokenMeasures = new Set<string>();
  const modelNames = new Set<string>();
  for (const { file, value } of [...collect(documents, "semantic_models", "semantic_model", fileError, warn), ...latest]) {
    const name = nameOf(value);
    const label = name === null ? "semantic model" : `semantic model ${JSON.stringify(name)}`;
    const result = readSemanticModel(value, file, database);
    if ("problems" in result) {
      for (const problem of result.problems) fileError(file, `${label}: ${problem}`);
      for (const measure of declaredMeasureNames(value)) brokenMeasures.add(measure);
      continue;
    }
    if (modelNames.has(result.model.name)) {
      fileError(file, `${label}: duplicate semantic model name`);
      continue;
    }
    modelNames.add(result.model.name);
    models.push(result.model);
  }
  return { models, brokenMeasures };
}

/** measure name -> its model; a measure defined in two models is neither's. */
function measureIndex(models: readonly SemanticModel[], brokenMeasures: Set<string>, fileError: FileError): Project["measures"] {
  const measures = new Map<string, { model: SemanticModel; measure: MfMeasure }>();
  for (const model of models) {
    for (const measure of model.measures) {
      const first = measures.get(measure.name);
      if (first !== undefined) {
        const where = `semantic model ${JSON.stringify(model.name)}: measure ${measure.name}`;
        fileError(model.file, `${where}: already defined in semantic model ${first.model.name}`);
        brokenMeasures.add(measure.name);
        measures.delete(measure.name);
      } else if (!brokenMeasures.has(measure.name)) measures.set(measure.name, { model, measure });
    }
  }
  return measures;
}

/**
 * What a semantic model declares and no metric will use, said once per model: a measure no
 * metric reads (it gets no tests), a primary_entity that is no column (no primary-key rules).
 */
function unreadElements(
  models: readonly SemanticModel[],
  parsed: readonly { result: { ok: true; value: MfMetric } | { ok: false; problems: string[] } }[],
  warn: (file: string, message: string) => void,
): void {
  const read = new Set<string>();
  for (const { result } of parsed) {
    if (!result.ok) continue;
    const metric = result.value;
    if (metric.type === "simple" || metric.type === "cumulative") read.add(metric.type_params.measure.name);
    if (metric.type === "conversion") {
      const { base_measure: base, conversion_measure: converted } = metric.type_params.conversion_type_params;
      for (const m of [base, converted]) read.add(typeof m === "string" ? m : m.name);
    }
  }
  for (const model of models) {
    const where = `${model.file}: semantic model ${JSON.stringify(model.name)}`;
    for (const measure of model.measures)
      if (!read.has(measure.name)) warn(model.file, `${where}: measure ${measure.name} is read by no metric (not tested)`);
    const primary = model.entities.some((e) => e.type === "primary");
    if (model.primary_entity !== null && !primary && model.measures.length > 0)
      warn(model.file, `${where}: primary_entity ${model.primary_entity} is no column (no entity of type primary): no primary-key rules`);
  }
}
