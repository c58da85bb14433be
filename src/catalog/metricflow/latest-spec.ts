// dbt's latest YAML spec (dbt Core 1.12, Fusion, the dbt platform) read into the legacy shapes
// the rest of this reader parses, so both specs, mixed across files, give the same IR:
// - `models: [{ name, semantic_model: true | { enabled, name, ... }, columns, metrics, ... }]`
//   -> one `semantic_model` (entities and dimensions from the columns' `entity:` / `dimension:`
//   / `granularity:`, `derived_semantics:` for those defined by `expr`, `agg_time_dimension`
//   and `primary_entity` at model level);
// - a simple metric (`agg`, `expr`, `agg_params`, `non_additive_dimension`...) -> a measure of
//   its model named like the metric, and a simple metric over it;
// - ratio, derived, cumulative and conversion metrics with their keys at the top level (under a
//   model or in a file's top-level `metrics:`) -> `type_params`.
// A metric that already has `type_params` is the legacy spec's and passes through unchanged.
// Whatever under `models:` names a semantic model or metric and is not read is named here.
import { z } from "zod";
import { isMapping, nameOf } from "../mapping.js";
import type { CatalogWarning } from "../types.js";

export interface LatestLocated {
  file: string;
  value: unknown;
  /** where it was written, e.g. `models[2].metrics[0]` */
  path: string;
}

export interface LatestSpecResult {
  /** legacy-shaped `semantic_model` values */
  models: LatestLocated[];
  /** metrics declared under `models:` (still in the latest spec's shape: see toLegacyMetric) */
  metrics: LatestLocated[];
  problems: { file: string; metric: string | null; message: string }[];
  warnings: CatalogWarning[];
}

const list = z.array(z.unknown()).catch([]);
const text = z.string().optional().catch(undefined);
const modelEntry = z.looseObject({ name: z.string() });
const semanticSwitch = z.union([z.boolean(), z.looseObject({ enabled: z.boolean().nullish(), name: z.string().nullish() })]);

/** `entity: primary` or `entity: { type, name, expr }` (and the same for `dimension:`). */
function element(raw: unknown): Record<string, unknown> | null {
  if (typeof raw === "string") return { type: raw };
  return isMapping(raw) ? raw : null;
}

const pick = (raw: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> =>
  Object.fromEntries(keys.filter((k) => raw[k] !== undefined).map((k) => [k, raw[k]]));

/** A dimension as the legacy spec writes it: granularity under type_params. */
function legacyDimension(raw: Record<string, unknown>, granularity: unknown): Record<string, unknown> {
  const { granularity: own, ...rest } = raw;
  const grain = granularity ?? own;
  const typeParams = isMapping(rest.type_params) ? rest.type_params : {};
  return grain === undefined ? rest : { ...rest, type_params: { ...typeParams, time_granularity: grain } };
}

const SIMPLE_KEYS = ["fill_nulls_with", "join_to_timespine"] as const;
const COMMON_KEYS = ["name", "description", "label", "filter", "time_granularity", "config", "meta"] as const;

/**
 * A metric of either spec -> the legacy shape. `measureOf` is set for a simple metric declared
 * under a model: its measure (named like the metric), for that model's `measures:`.
 */
export function toLegacyMetric(
  raw: Record<string, unknown>,
  onModel: boolean,
): { metric: Record<string, unknown>; measure: Record<string, unknown> | null } | { problem: string } {
  if (raw.type_params !== undefined) return { metric: raw, measure: null };
  const type = typeof raw.type === "string" ? raw.type.toLowerCase() : raw.type;
  const head = { ...pick(raw, COMMON_KEYS), type };
  const name = nameOf(raw);
  switch (type) {
    case "simple": {
      if (!onModel)
        return {
          problem:
            "type_params.measure: required (legacy spec); in the latest spec a simple metric goes under its model's metrics: with agg",
        };
      if (raw.agg === undefined) return { problem: "agg: required" };
      const percentile = pick(raw, ["percentile", "percentile_type"]);
      const aggParams = isMapping(raw.agg_params) ? raw.agg_params : {};
      const params =
        percentile.percentile === undefined && percentile.percentile_type === undefined
          ? raw.agg_params
          : {
              ...aggParams,
              ...(percentile.percentile === undefined ? {} : { percentile: percentile.percentile }),
              ...(typeof percentile.percentile_type === "string" && percentile.percentile_type.toLowerCase().includes("discrete")
                ? { use_discrete_percentile: true }
                : {}),
            };
      const measure = {
        name,
        agg: raw.agg,
        ...pick(raw, ["expr", "non_additive_dimension", "agg_time_dimension"]),
        ...(params === undefined ? {} : { agg_params: params }),
      };
      return { metric: { ...head, type_params: { measure: { name, ...pick(raw, SIMPLE_KEYS) } } }, measure };
    }
    case "ratio":
      if (raw.numerator === undefined || raw.denominator === undefined)
        return { problem: "numerator and denominator: required for a ratio metric (type_params: in the legacy spec)" };
      return { metric: { ...head, type_params: pick(raw, ["numerator", "denominator"]) }, measure: null };
    case "derived":
      if (raw.expr === undefined) return { problem: "expr: required for a derived metric (type_params.expr in the legacy spec)" };
      if (!Array.isArray(raw.input_metrics) || raw.input_metrics.length === 0)
        return { problem: "input_metrics: a derived metric needs input metrics (type_params.metrics in the legacy spec)" };
      return { metric: { ...head, type_params: { expr: raw.expr, metrics: raw.input_metrics } }, measure: null };
    case "cumulative": {
      const input = typeof raw.input_metric === "string" ? { name: raw.input_metric } : raw.input_metric;
      if (!isMapping(input) || typeof input.name !== "string")
        return { problem: "input_metric: required for a cumulative metric (type_params.measure in the legacy spec)" };
      const window = pick(raw, ["window", "grain_to_date"]);
      const cumulative = pick(raw, ["period_agg"]);
      const typeParams = {
        // A metric, not a measure: the reader swaps in that metric's measure and filter.
        input_metric: input,
        measure: { name: input.name },
        ...window,
        ...(Object.keys(cumulative).length === 0 ? {} : { cumulative_type_params: cumulative }),
      };
      return { metric: { ...head, type_params: typeParams }, measure: null };
    }
    case "conversion": {
      const missing = ["entity", "base_metric", "conversion_metric"].filter((k) => raw[k] === undefined);
      if (missing.length > 0)
        return {
          problem: `${missing.join(", ")}: required for a conversion metric (type_params.conversion_type_params in the legacy spec)`,
        };
      const conversion = {
        ...pick(raw, ["entity", "calculation", "window", "constant_properties"]),
        // Metrics, not measures: the reader swaps in their measures.
        base_measure: raw.base_metric,
        conversion_measure: raw.conversion_metric,
      };
      return { metric: { ...head, type_params: { conversion_type_params: conversion } }, measure: null };
    }
    default:
      // Left to the metric schema, which names the expected types.
      return { metric: raw, measure: null };
  }
}

/** One `models:` entry: its semantic model and its metrics, or what it leaves unread. */
function readModelEntry(file: string, path: string, raw: Record<string, unknown>, out: LatestSpecResult): void {
  const entry = modelEntry.safeParse(raw);
  const rawMetrics = list.parse(raw.metrics);
  const label = entry.success ? `${path} (${entry.data.name})` : path;
  const switched = raw.semantic_model === undefined ? undefined : semanticSwitch.safeParse(raw.semantic_model);
  const columns = list.parse(raw.columns).filter(isMapping);
  const annotated = columns.filter((c) => c.entity !== undefined || c.dimension !== undefined || c.granularity !== undefined);
  const names = rawMetrics.map((m, i) => nameOf(m) ?? `${path}.metrics[${i}]`);

  if (switched !== undefined && !switched.success) {
    out.problems.push({ file, metric: null, message: `${file}: ${label}: semantic_model: expected true, false or a mapping` });
    for (const name of names)
      out.problems.push({ file, metric: name, message: `${file}: metric ${JSON.stringify(name)}: its model's semantic_model is invalid` });
    return;
  }
  // `{ enabled: false }` and dbt's usual `{ config: { enabled: false } }` both switch it off.
  const settingsOff = (value: Record<string, unknown>) =>
    value.enabled === false || (isMapping(value.config) && value.config.enabled === false);
  const on = switched !== undefined && (switched.data === true || (isMapping(switched.data) && !settingsOff(switched.data)));
  if (!on) {
    const why = switched === undefined ? "has no semantic_model" : "has semantic_model switched off";
    // Metrics on a model that is no semantic model cannot compile: an error each, by name.
    for (const name of names)
      out.problems.push({
        file,
        metric: name,
        message: `${file}: metric ${JSON.stringify(name)}: ${label} ${why} (set semantic_model: true)`,
      });
    const unread = [
      ...(switched !== undefined ? ["semantic_model"] : []),
      ...(annotated.length > 0 ? [`entity/dimension/granularity on ${annotated.length} column(s)`] : []),
      ...(raw.agg_time_dimension !== undefined ? ["agg_time_dimension"] : []),
      ...(raw.derived_semantics !== undefined ? ["derived_semantics"] : []),
    ];
    if (unread.length > 0) out.warnings.push({ file, message: `${file}: ${label} ${why}: ${unread.join(", ")} not read` });
    return;
  }
  if (!entry.success) {
    out.problems.push({ file, metric: null, message: `${file}: ${path}: name: required` });
    return;
  }
  const model = entry.data;
  const config = isMapping(model.config) ? model.config : {};
  const settings = isMapping(switched.data) ? switched.data : {};
  const entities: unknown[] = [];
  const dimensions: unknown[] = [];
  columns.forEach((column, i) => {
    const at = `${path}.columns[${i}]`;
    const columnName = typeof column.name === "string" ? column.name : null;
    const entity = column.entity === undefined ? null : element(column.entity);
    const dimension = column.dimension === undefined ? null : element(column.dimension);
    if (columnName === null) {
      if (column.entity !== undefined || column.dimension !== undefined)
        out.problems.push({ file, metric: null, message: `${file}: ${label}: ${at}.name: required for its entity/dimension` });
      return;
    }
    if (column.entity !== undefined && entity === null)
      out.problems.push({ file, metric: null, message: `${file}: ${label}: ${at}.entity: expected a type or a mapping` });
    if (column.dimension !== undefined && dimension === null)
      out.problems.push({ file, metric: null, message: `${file}: ${label}: ${at}.dimension: expected a type or a mapping` });
    // The column is the element's value unless it says otherwise (its own expr).
    if (entity !== null) entities.push({ name: columnName, expr: columnName, ...entity });
    if (dimension !== null) dimensions.push(legacyDimension({ name: columnName, expr: columnName, ...dimension }, column.granularity));
    if (column.granularity !== undefined && column.dimension === undefined)
      out.warnings.push({
        file,
        message: `${file}: ${label}: ${at} (${columnName}): granularity without dimension: is not a dimension (add dimension: time)`,
      });
  });
  const derived = isMapping(raw.derived_semantics) ? raw.derived_semantics : {};
  for (const item of list.parse(derived.entities)) entities.push(item);
  for (const item of list.parse(derived.dimensions)) dimensions.push(isMapping(item) ? legacyDimension(item, undefined) : item);

  const measures: unknown[] = [];
  rawMetrics.forEach((metric, i) => {
    const at = `${path}.metrics[${i}]`;
    if (!isMapping(metric)) {
      out.problems.push({ file, metric: null, message: `${file}: ${label}: ${at}: expected a mapping` });
      return;
    }
    out.metrics.push({ file, value: metric, path: at });
    const read = toLegacyMetric(metric, true);
    if ("measure" in read && read.measure !== null) measures.push(read.measure);
  });
  const alias = typeof config.alias === "string" ? config.alias : model.name;
  const aggTime = raw.agg_time_dimension ?? settings.agg_time_dimension;
  out.models.push({
    file,
    path,
    value: {
      name: typeof settings.name === "string" ? settings.name : model.name,
      ...(text.parse(raw.description) === undefined ? {} : { description: raw.description }),
      node_relation: { alias },
      ...(raw.primary_entity !== undefined || settings.primary_entity !== undefined
        ? { primary_entity: raw.primary_entity ?? settings.primary_entity }
        : {}),
      ...(aggTime === undefined ? {} : { defaults: { agg_time_dimension: aggTime } }),
      entities,
      dimensions,
      measures,
    },
  });
}

/** Every file's `models:` read for the latest spec. */
export function readLatestSpec(documents: readonly { file: string; document: unknown }[]): LatestSpecResult {
  const out: LatestSpecResult = { models: [], metrics: [], problems: [], warnings: [] };
  for (const { file, document } of documents) {
    if (!isMapping(document) || !Array.isArray(document.models)) continue;
    document.models.forEach((raw, i) => {
      if (isMapping(raw)) readModelEntry(file, `models[${i}]`, raw, out);
    });
  }
  return out;
}
