// Renders a MetricFlow filter (`{{ Dimension('listing__is_lux') }}`, `{{ Entity('user') }}`,
// `{{ TimeDimension('metric_time', 'month') }}`) to ClickHouse SQL over the metric's base
// table. A condition on a joined model's dimension becomes a semi-join on the key path,
// `toString(fk) IN (SELECT toString(key) FROM joined WHERE condition)`: the rows it keeps are
// those a LEFT JOIN plus the condition keeps (a row without a match has a NULL dimension,
// which no condition accepts), and the table's one-query scan needs no JOIN. toString makes
// the IN valid on ClickHouse 18.16 whatever the key types (it demands equal types there).
import { quoteTable } from "../../sql/identifiers.js";
import { splitConjuncts, templateCalls, type TemplateCall } from "./filter-template.js";
import { resolvePath, type JoinGraph } from "./join-graph.js";
import { metricCondition, type MetricSource } from "./metric-filter.js";
import type { Hop, MfDimension, SemanticModel } from "./types.js";
import { valueSql } from "./value-sql.js";

export interface RenderContext {
  graph: JoinGraph;
  model: SemanticModel;
  /** name of the measure's agg time dimension (what `metric_time` means), or null */
  aggTimeDimension: string | null;
  /** a simple/cumulative metric of the project, for `{{ Metric(...) }}`; null when there is none */
  metric?: (name: string) => MetricSource | null;
}

/** A dimension of a joined model that the filter reads. */
export interface JoinedDimension {
  hops: Hop[];
  dimension: MfDimension;
}

export type RenderResult =
  { ok: true; sql: string; hops: Hop[][]; dimensions: JoinedDimension[] } | { ok: false; problem: string; unsupported: boolean };

/** MetricFlow's standard time granularities (a time spine's custom ones are not read). */
const MF_GRAINS = [
  "nanosecond",
  "microsecond",
  "millisecond",
  "second",
  "minute",
  "hour",
  "day",
  "week",
  "month",
  "quarter",
  "year",
] as const;
type MfGrain = (typeof MF_GRAINS)[number];

/** Truncation to each grain in ClickHouse (classic functions: 18.16 and current releases); null: not supported. */
const GRAIN_SQL: Record<MfGrain, ((sql: string) => string) | null> = {
  nanosecond: null,
  microsecond: null,
  millisecond: null,
  // toStartOfSecond needs DateTime64 on current releases and is missing on 18.16; a DateTime already is.
  second: (sql) => `toDateTime(${sql})`,
  minute: (sql) => `toStartOfMinute(toDateTime(${sql}))`,
  hour: (sql) => `toStartOfHour(toDateTime(${sql}))`,
  day: (sql) => `toStartOfDay(toDateTime(${sql}))`,
  week: (sql) => `toMonday(toDateTime(${sql}))`,
  month: (sql) => `toStartOfMonth(toDateTime(${sql}))`,
  quarter: (sql) => `toStartOfQuarter(toDateTime(${sql}))`,
  year: (sql) => `toStartOfYear(toDateTime(${sql}))`,
};
const isGrain = (text: string): text is MfGrain => (MF_GRAINS as readonly string[]).includes(text);

export { valueSql };

function withGrain(sql: string, grain: string | null): string | { problem: string } {
  if (grain === null) return sql;
  const key = grain.toLowerCase();
  const truncate = isGrain(key) ? GRAIN_SQL[key] : null;
  return truncate === null ? { problem: `time granularity ${grain}` } : truncate(sql);
}

const pathKey = (hops: readonly Hop[]): string => hops.map((h) => `${h.from.name}.${h.from_column}>${h.to.name}.${h.to_column}`).join("|");

type Resolved = { sql: string; hops: Hop[]; dimension: MfDimension | null } | { problem: string; unsupported: boolean };

function resolveCall(call: TemplateCall, context: RenderContext): Resolved {
  const unsupported = (what: string): Resolved => ({ problem: what, unsupported: true });
  for (const [method] of call.methods) if (method !== "grain") return unsupported(`.${method}() on ${call.kind}() in a filter`);
  const grainMethod = call.methods.find(([m]) => m === "grain")?.[1] ?? null;
  if (call.kind !== "Dimension" && call.kind !== "TimeDimension" && call.kind !== "Entity")
    return unsupported(`${call.kind}() in a filter`);
  const name = call.positional[0];
  if (name === undefined) return { problem: `${call.kind}() without a name`, unsupported: false };
  const parts = name.split("__");
  const element = parts.pop()!;
  const path = [...(call.keywords.entity_path ?? []), ...parts];
  const grain =
    call.kind === "TimeDimension" ? (call.positional[1] ?? call.keywords.time_granularity_name?.[0] ?? grainMethod) : grainMethod;

  if (call.kind === "Entity") {
    const found = resolvePath(context.graph, context.model, path, (m) => m.entities.some((e) => e.name === element));
    if ("problem" in found) return found;
    const entity = found.model.entities.find((e) => e.name === element)!;
    return { sql: valueSql(entity), hops: found.hops, dimension: null };
  }
  // metric_time is the measure's own agg time dimension.
  const target = element === "metric_time" && path.length === 0 ? context.aggTimeDimension : element;
  if (target === null)
    return { problem: "metric_time without an agg_time_dimension on the measure or its semantic model", unsupported: false };
  const found = resolvePath(context.graph, context.model, path, (m) => m.dimensions.some((d) => d.name === target));
  if ("problem" in found) return { problem: `${call.text.trim()}: ${found.problem}`, unsupported: found.unsupported };
  const dimension = found.model.dimensions.find((d) => d.name === target)!;
  const sql = withGrain(valueSql(dimension), grain);
  if (typeof sql !== "string") return unsupported(sql.problem);
  return { sql, hops: found.hops, dimension };
}

/** `toString(fk) IN (SELECT toString(key) FROM t WHERE ...)`, innermost hop last. */
export function semiJoin(hops: readonly Hop[], condition: string): string {
  let sql = condition;
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = hops[i]!;
    sql = `toString(${hop.from_column}) IN (SELECT toString(${hop.to_column}) FROM ${quoteTable(hop.to.table)} WHERE ${sql})`;
  }
  return sql;
}

export function renderFilter(template: string, context: RenderContext): RenderResult {
  const conjuncts = splitConjuncts(template);
  const rendered: string[] = [];
  const paths = new Map<string, Hop[]>();
  const dimensions: JoinedDimension[] = [];
  for (const conjunct of conjuncts) {
    const parsed = templateCalls(conjunct);
    if ("problem" in parsed) return { ok: false, problem: parsed.problem, unsupported: true };
    const metricCall = parsed.calls.find((c) => c.kind === "Metric");
    if (metricCall) {
      if (parsed.calls.length > 1)
        return { ok: false, problem: `Metric() beside other calls in one condition (${conjunct}); split it with AND`, unsupported: true };
      if (metricCall.methods.length > 0)
        return { ok: false, problem: `.${metricCall.methods[0]![0]}() on Metric() in a filter`, unsupported: true };
      const source = context.metric?.(metricCall.positional[0] ?? "") ?? null;
      const result = metricCondition(conjunct, metricCall, context.model, source);
      if ("problem" in result) return { ok: false, problem: result.problem, unsupported: result.unsupported };
      rendered.push(result.sql);
      continue;
    }
    let sql = conjunct;
    let hops: Hop[] | null = null;
    for (const call of parsed.calls) {
      const resolved = resolveCall(call, context);
      if ("problem" in resolved) return { ok: false, problem: resolved.problem, unsupported: resolved.unsupported };
      if (hops !== null && pathKey(hops) !== pathKey(resolved.hops)) {
        return {
          ok: false,
          problem: `one condition over dimensions reached by different join paths (${conjunct}); split it with AND`,
          unsupported: true,
        };
      }
      hops = resolved.hops;
      if (resolved.dimension && resolved.hops.length > 0) dimensions.push({ hops: resolved.hops, dimension: resolved.dimension });
      sql = sql.replace(call.text, () => resolved.sql); // a function: no `$&`-style patterns in the SQL
    }
    if (sql.includes("{{") || sql.includes("}}"))
      return { ok: false, problem: `Jinja in filter ${JSON.stringify(conjunct)}`, unsupported: true };
    if (hops !== null && hops.length > 0) {
      paths.set(pathKey(hops), hops);
      sql = semiJoin(hops, sql);
    }
    rendered.push(sql);
  }
  const sql = rendered.length === 1 ? rendered[0]! : rendered.map((c) => `(${c})`).join(" AND ");
  return { ok: true, sql, hops: [...paths.values()], dimensions };
}
