// Reads one `semantic_model` mapping into a SemanticModel, naming every problem by its field.
import { isIdentifier } from "../../sql/identifiers.js";
import { filterProblem } from "../filter-check.js";
import { tableOf } from "./relation.js";
import type { EntityType, MfDimension, MfEntity, MfMeasure, SemanticModel, ValueRef } from "./types.js";

const ENTITY_TYPES = new Set<EntityType>(["primary", "unique", "foreign", "natural"]);
export const AGGREGATIONS = new Set(["sum", "sum_boolean", "count", "count_distinct", "average", "min", "max", "median", "percentile"]);

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === "string" ? value : null);

/** `expr` absent: the column named like the element; a plain name: that column; else SQL. */
export function valueRef(name: string, expr: unknown): ValueRef | { problem: string } {
  if (expr === undefined || expr === null)
    return isIdentifier(name) ? { column: name, expr: null } : { problem: `name ${JSON.stringify(name)} is not a column name: give expr` };
  const sql = typeof expr === "number" || typeof expr === "boolean" ? String(expr) : typeof expr === "string" ? expr.trim() : null;
  if (sql === null) return { problem: "expr: expected a string" };
  if (isIdentifier(sql)) return { column: sql, expr: null };
  const problem = filterProblem(sql);
  if (problem !== null) return { problem: `expr ${JSON.stringify(sql)} ${problem}` };
  return { column: null, expr: sql };
}

export interface ModelResult {
  model: SemanticModel | null;
  problems: string[];
}

function list(raw: Record<string, unknown>, key: string, problems: string[]): Record<string, unknown>[] {
  const value = raw[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.push(`${key}: expected a list`);
    return [];
  }
  return value.filter((item, i) => {
    if (isMapping(item) && typeof item.name === "string") return true;
    problems.push(`${key}[${i}]: expected a mapping with a name`);
    return false;
  }) as Record<string, unknown>[];
}

export function readSemanticModel(raw: Record<string, unknown>, file: string, database: string): ModelResult {
  const problems: string[] = [];
  const name = text(raw.name);
  if (name === null) return { model: null, problems: ["name: required"] };
  const relation = tableOf(raw, database);
  if ("problem" in relation) problems.push(relation.problem);
  const defaults = isMapping(raw.defaults) ? raw.defaults : {};

  const entities: MfEntity[] = [];
  for (const [i, e] of list(raw, "entities", problems).entries()) {
    const type = text(e.type) as EntityType | null;
    if (type === null || !ENTITY_TYPES.has(type)) {
      problems.push(`entities[${i}].type: expected one of primary|unique|foreign|natural`);
      continue;
    }
    const ref = valueRef(e.name as string, e.expr);
    if ("problem" in ref) problems.push(`entities[${i}]: ${ref.problem}`);
    else entities.push({ name: e.name as string, type, ...ref });
  }

  const dimensions: MfDimension[] = [];
  for (const [i, d] of list(raw, "dimensions", problems).entries()) {
    const type = text(d.type);
    if (type !== "categorical" && type !== "time") {
      problems.push(`dimensions[${i}].type: expected categorical|time`);
      continue;
    }
    const ref = valueRef(d.name as string, d.expr);
    const params = isMapping(d.type_params) ? d.type_params : {};
    if ("problem" in ref) problems.push(`dimensions[${i}]: ${ref.problem}`);
    else dimensions.push({ name: d.name as string, type, granularity: text(params.time_granularity), ...ref });
  }

  const measures: MfMeasure[] = [];
  for (const [i, m] of list(raw, "measures", problems).entries()) {
    const agg = text(m.agg);
    if (agg === null || !AGGREGATIONS.has(agg)) {
      problems.push(`measures[${i}].agg: expected one of ${[...AGGREGATIONS].join("|")}`);
      continue;
    }
    const ref = valueRef(m.name as string, m.expr);
    if ("problem" in ref) {
      problems.push(`measures[${i}]: ${ref.problem}`);
      continue;
    }
    const aggParams = isMapping(m.agg_params) ? m.agg_params : null;
    if (agg === "percentile" && typeof aggParams?.percentile !== "number")
      problems.push(`measures[${i}].agg_params.percentile: required for agg percentile`);
    measures.push({
      name: m.name as string,
      agg,
      description: text(m.description),
      agg_params: aggParams,
      agg_time_dimension: text(m.agg_time_dimension),
      non_additive_dimension: m.non_additive_dimension ?? null,
      create_metric: m.create_metric === true,
      ...ref,
    });
  }

  if (problems.length > 0 || "problem" in relation) return { model: null, problems };
  return {
    model: {
      name,
      file,
      description: text(raw.description),
      table: relation.table,
      primary_entity: text(raw.primary_entity) ?? entities.find((e) => e.type === "primary")?.name ?? null,
      agg_time_dimension: text(defaults.agg_time_dimension),
      entities,
      dimensions,
      measures,
    },
    problems,
  };
}
