// Plans the anomaly series: one cadence query per (datasource, table, timestamp column) and then
// ONE query per (datasource, table, timestamp column, grain) computing, per time bucket of the
// span, the row count and every measure of every metric over that metric's filter, folded
// like the one-pass scan (countIf / sumIf / uniqExactIf / avgIf / minIf / maxIf /
// quantileExactIf per filter, NULL-guarded with ifNull as ClickHouse 18.16 needs). The span is
// bounded by a WHERE on the timestamp column (a constant of its own type, so the sort key
// prunes) and ends at the last complete bucket, which is never the current one.
import type { AnomalyGrain } from "../catalog/types.js";
import { GRAIN_SECONDS } from "../catalog/types.js";
import type { InferredTest, SeriesMeasure, SeriesSegment, SeriesSettings } from "../infer/types.js";
import { quoteString, quoteTable } from "../sql/identifiers.js";
import { isExpression, timeSql } from "../sql/value-expr.js";
import { skipReason } from "./column-check.js";
import { coveredUntil, timeKindOf, timeRangeSql, bucketSql, type TimeKind } from "./series-time.js";
import type { Cadence } from "./cadence-query.js";
import { isNumberType } from "./column-types.js";
import type { Skip, WarehouseSchema } from "./types.js";

/**
 * Series tests of one grain in a group (of one segment dimension, or unsegmented), and how many
 * buckets the longest of them looks back.
 */
export interface GrainPlan {
  grain: AnomalyGrain;
  /** the dimension whose values each get a series (one query per dimension), null: the totals */
  segment: SeriesSegment | null;
  /** max(historyBuckets) over its tests */
  buckets: number;
  /** volume_series and value_series tests */
  tests: InferredTest[];
}

/** Everything read by time on one (datasource, table, timestamp column). */
export interface SeriesGroup {
  /** `datasource|table|timestamp`: the series' identity in caches and logs */
  id: string;
  datasource: string;
  table: string;
  timestamp: string;
  kind: TimeKind;
  grains: GrainPlan[];
  /** load_cadence tests */
  cadenceTests: InferredTest[];
  /** how far back from now the cadence query reads (the longest span of its tests, plus a week) */
  windowSeconds: number;
}

export interface AnomalyPlan {
  groups: SeriesGroup[];
  /** tests that will not be sent, and why */
  skipped: ({ test_key: string } & Skip)[];
}

/**
 * Training windows read before a check's own window (its training + detection buckets), so the
 * model that judges the window has warmed up on the history before it, as a backtest's does:
 * scored from the window's start alone, every verdict came from a model that had just begun
 * (docs/anomaly-eval.md, "As a scan judges them").
 */
export const WARM_UP_WINDOWS = 1;

/**
 * The buckets a series check reads: a warm-up, then its own window (what the chart keeps). A
 * segment's series read their window only: a segmented check holds up to max_segments + 2 of
 * them, and with the warm-up the segments of a tenth of 10,000 metrics doubled the series a scan
 * holds (docs/benchmarks.md); they keep the window-only model's false-alarm rate.
 */
export function historyBuckets(settings: Pick<SeriesSettings, "training_buckets" | "detection_buckets">, segmented = false): number {
  return (segmented ? 1 : 1 + WARM_UP_WINDOWS) * settings.training_buckets + settings.detection_buckets;
}

/** Extra history the cadence query reads, so a table idle for a while still finds its newest row. */
const WINDOW_MARGIN_SECONDS = 7 * 86_400;

const ZERO_FILLED = new Set(["Sum", "SumBoolean", "Count", "CountDistinct"]);
const NEEDS_COUNT = new Set(["Min", "Max", "Median", "Percentile"]);
const NUMERIC_ONLY = new Set(["Sum", "Avg", "Min", "Max", "Median", "Percentile"]);

function seriesSkipReason(test: InferredTest, schema: WarehouseSchema, kind: TimeKind | null, type: string): Skip | null {
  const probe = test.probe;
  if (probe.type !== "volume_series" && probe.type !== "value_series" && probe.type !== "load_cadence") return null;
  if (kind === null) return { outcome: "not_evaluated", reason: `${probe.timestamp} is ${type}, not a Date, DateTime or unix time` };
  if (probe.type !== "load_cadence" && kind === "date" && probe.settings.grain === "hour")
    return { outcome: "not_applicable", reason: `${probe.timestamp} is a Date: no hours to bucket by` };
  if (probe.type === "value_series" && NUMERIC_ONLY.has(probe.measure.function)) {
    // A plain column of another type (Max of a String) is a valid measure but no series of numbers.
    const columns = schema[test.datasource]?.[test.table] ?? {};
    const plain = test.columns.filter((ref) => ref.column !== probe.timestamp && `\`${ref.column}\`` === probe.measure.sql);
    const bad = plain.find((ref) => !isNumberType(columns[ref.column] ?? ""));
    if (bad) return { outcome: "not_applicable", reason: `${bad.column} is ${columns[bad.column]}, not a number` };
  }
  return null;
}

/** Groups the runnable anomaly tests (deduplicated by key) by table and timestamp, then grain. */
export function planAnomalies(tests: readonly InferredTest[], schema: WarehouseSchema): AnomalyPlan {
  const groups = new Map<string, SeriesGroup>();
  const skipped: AnomalyPlan["skipped"] = [];
  const seen = new Set<string>();
  for (const test of tests) {
    const probe = test.probe;
    if (seen.has(test.key)) continue;
    if (probe.type !== "volume_series" && probe.type !== "value_series" && probe.type !== "load_cadence") continue;
    seen.add(test.key);
    const missing = skipReason(test, schema);
    // An expression timestamp is read through toDateTime (sql/value-expr.ts): a DateTime.
    const type = isExpression(probe.timestamp) ? "DateTime" : (schema[test.datasource]?.[test.table]?.[probe.timestamp] ?? "");
    const kind = timeKindOf(type);
    const skip = missing ?? seriesSkipReason(test, schema, kind, type);
    if (skip !== null || kind === null) {
      skipped.push({ test_key: test.key, ...(skip ?? { outcome: "not_evaluated", reason: "no timestamp type" }) });
      continue;
    }
    const id = `${test.datasource}|${test.table}|${probe.timestamp}`;
    let group = groups.get(id);
    if (!group) {
      group = {
        id,
        datasource: test.datasource,
        table: test.table,
        timestamp: probe.timestamp,
        kind,
        grains: [],
        cadenceTests: [],
        windowSeconds: 0,
      };
      groups.set(id, group);
    }
    if (probe.type === "load_cadence") {
      group.cadenceTests.push(test);
      group.windowSeconds = Math.max(group.windowSeconds, probe.window_seconds + WINDOW_MARGIN_SECONDS);
      continue;
    }
    const { grain, training_buckets, detection_buckets } = probe.settings;
    const segment = probe.segment ?? null;
    const slot = grainSlot({ grain, segment });
    let plan = group.grains.find((g) => grainSlot(g) === slot);
    if (!plan) group.grains.push((plan = { grain, segment, buckets: 0, tests: [] }));
    plan.buckets = Math.max(plan.buckets, historyBuckets({ training_buckets, detection_buckets }, segment !== null));
    plan.tests.push(test);
    // The warm-up included: the cadence query's oldest row is where a series' history begins.
    group.windowSeconds = Math.max(group.windowSeconds, plan.buckets * GRAIN_SECONDS[grain] + WINDOW_MARGIN_SECONDS);
  }
  const ordered = [...groups.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // By grain, the totals first, then the segment dimensions in a stable order.
  const order = (g: GrainPlan) => (g.segment === null ? "" : grainSlot(g));
  for (const group of ordered)
    group.grains.sort(
      (a, b) => GRAIN_SECONDS[a.grain] - GRAIN_SECONDS[b.grain] || (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0),
    );
  return { groups: ordered, skipped };
}

/**
 * A grain plan's identity in its group (and its reading's): the grain, and for a segmented one
 * the dimension's SQL and how many values get a series (one query each).
 */
export function grainSlot(plan: { grain: AnomalyGrain; segment?: SeriesSegment | null }): string {
  return plan.segment ? `${plan.grain}|${plan.segment.max_segments}|${plan.segment.sql}` : plan.grain;
}

/** The complete buckets a grain's series covers: [start, end), unix seconds, `buckets` long. */
export interface SeriesSpan {
  start: number;
  end: number;
  step: number;
}

/**
 * A bucket is complete once the clock has passed its end and the table's newest row is within
 * its usual loading gap of that end: a daily batch of yesterday's rows loaded at 02:00 leaves
 * yesterday unscored until it lands (no alarm at 01:00), and a table that stopped loading
 * leaves its last buckets to the freshness rules instead of reading as a volume drop.
 * Null when the window holds no rows at all.
 */
export function seriesSpan(cadence: Cadence, kind: TimeKind, grain: AnomalyGrain, buckets: number, usualGap: number): SeriesSpan | null {
  if (cadence.newest === null) return null;
  const step = GRAIN_SECONDS[grain];
  const current = Math.floor(cadence.now / step) * step;
  const loaded = Math.floor((coveredUntil(kind, cadence.newest) + usualGap) / step) * step;
  const end = Math.min(current, loaded);
  return { start: end - buckets * step, end, step };
}

/** What one result column of a series query holds. */
export interface SeriesOutput {
  alias: string;
  test_key: string;
  /** value: the series itself; count: non-NULL rows behind a min/max/quantile (0: no value) */
  part: "value" | "count";
  /** what a bucket without rows reads as: 0 for counts and sums, null (missing) otherwise */
  empty: 0 | null;
}

export interface SeriesQuery {
  sql: string;
  outputs: SeriesOutput[];
}

function measureSql(measure: SeriesMeasure, condition: string | null): { value: string; count: string | null } {
  const x = measure.sql;
  const c = condition;
  const countNonNull = c === null ? `count(${x})` : `ifNull(countIf(isNotNull(${x}) AND (${c})), 0)`;
  switch (measure.function) {
    case "Sum":
      return { value: c === null ? `ifNull(sum(${x}), 0)` : `ifNull(sumIf(${x}, ${c}), 0)`, count: null };
    case "SumBoolean":
      return { value: c === null ? `ifNull(sum(if(${x}, 1, 0)), 0)` : `ifNull(sumIf(if(${x}, 1, 0), ${c}), 0)`, count: null };
    case "Count":
      return { value: countNonNull, count: null };
    case "CountDistinct":
      return { value: c === null ? `ifNull(uniqExact(${x}), 0)` : `ifNull(uniqExactIf(${x}, ${c}), 0)`, count: null };
    case "Avg":
      // NULL (or NaN, which JSON renders as null) when no row has a value: missing.
      return { value: c === null ? `avg(${x})` : `avgIf(${x}, ${c})`, count: null };
    case "Min":
    case "Max": {
      const f = measure.function === "Min" ? "min" : "max";
      return { value: c === null ? `${f}(${x})` : `${f}If(${x}, ${c})`, count: countNonNull };
    }
    case "Median":
    case "Percentile": {
      const p = measure.function === "Median" ? 0.5 : (measure.percentile ?? 0.5);
      return { value: c === null ? `quantileExact(${p})(${x})` : `quantileExactIf(${p})(${x}, ${c})`, count: countNonNull };
    }
  }
}

/** The WHERE of a grain's query: the span, and the filters (as the one-pass scan folds them). */
function whereOf(group: SeriesGroup, span: SeriesSpan, filters: (string | null)[]): { where: string; conditioned: boolean } {
  const range = timeRangeSql(timeSql(group.timestamp), group.kind, span.start, span.end);
  const [only, ...more] = filters;
  if (more.length === 0) return { where: only == null ? range : `${range} AND (${only})`, conditioned: false };
  if (filters.includes(null)) return { where: range, conditioned: true };
  return { where: `${range} AND (${filters.map((f) => `(${f})`).join(" OR ")})`, conditioned: true };
}

/**
 * The grain's query (split only past `budget` bytes, each part with the same GROUP BY): one row
 * per bucket with rows, `b` its start in unix seconds.
 */
export function seriesQueries(group: SeriesGroup, plan: GrainPlan, span: SeriesSpan, budget: number): SeriesQuery[] {
  const filters = [...new Set(plan.tests.map((t) => t.filter))].sort((a, b) => (a === null ? -1 : b === null ? 1 : a < b ? -1 : 1));
  const { where, conditioned } = whereOf(group, span, filters);
  const bucket = `toUInt32(${bucketSql(timeSql(group.timestamp), group.kind, plan.grain)})`;
  const from = quoteTable(group.table);
  const segment = plan.segment === null ? null : segmentSql(plan.segment, from, where);
  const head = segment === null ? `SELECT ${bucket} AS b, count() AS total` : `SELECT ${bucket} AS b, ${segment} AS s, count() AS total`;
  const tail = ` FROM ${from} WHERE ${where} ${segment === null ? "GROUP BY b ORDER BY b" : "GROUP BY b, s ORDER BY b, s"}`;
  interface Draft {
    columns: string[];
    aliases: Map<string, string>;
    outputs: SeriesOutput[];
    length: number;
  }
  const queries: Draft[] = [];
  const fresh = (): Draft => ({ columns: [], aliases: new Map(), outputs: [], length: head.length + tail.length });
  let current = fresh();
  queries.push(current);
  for (const test of plan.tests) {
    const condition = conditioned ? test.filter : null;
    const wanted: { part: SeriesOutput["part"]; empty: 0 | null; expression: string | null }[] = [];
    if (test.probe.type === "volume_series") {
      wanted.push({ part: "value", empty: 0, expression: condition === null ? null : `ifNull(countIf(${condition}), 0)` });
    } else if (test.probe.type === "value_series") {
      const { value, count } = measureSql(test.probe.measure, condition);
      wanted.push({ part: "value", empty: ZERO_FILLED.has(test.probe.measure.function) ? 0 : null, expression: value });
      if (count !== null && NEEDS_COUNT.has(test.probe.measure.function)) wanted.push({ part: "count", empty: 0, expression: count });
    }
    const extra = wanted.reduce((n, w) => n + (w.expression === null ? 0 : w.expression.length + 16), 0);
    if (current.outputs.length > 0 && current.length + extra > budget) {
      current = fresh();
      queries.push(current);
    }
    for (const w of wanted) {
      let alias = "total";
      if (w.expression !== null) {
        alias = current.aliases.get(w.expression) ?? `c${current.aliases.size + 1}`;
        if (!current.aliases.has(w.expression)) {
          current.aliases.set(w.expression, alias);
          current.columns.push(`${w.expression} AS ${alias}`);
          current.length += w.expression.length + alias.length + 6;
        }
      }
      current.outputs.push({ alias, test_key: test.key, part: w.part, empty: w.empty });
    }
  }
  return queries.map((q) => ({ sql: head + q.columns.map((c) => `, ${c}`).join("") + tail, outputs: q.outputs }));
}

/**
 * What a segment value reads as: NULL and the values folded into `other` as sentinels no real
 * value starts with (a NUL byte), everything else as its text (toString), so one column of one
 * type carries every dimension.
 */
export const NULL_SEGMENT = "\u0000null";
export const OTHER_SEGMENT = "\u0000other";
const sqlSentinel = (sentinel: string) => `'\\0${sentinel.slice(1)}'`;

/** A segment value (as segmentValueSql reads it; null: NULL) as an SQL string literal. */
export function segmentLiteral(value: string | null): string {
  return value === null ? sqlSentinel(NULL_SEGMENT) : quoteString(value);
}

/** A dimension's value as text, NULL as its sentinel. */
export function segmentValueSql(segment: SeriesSegment): string {
  return `ifNull(toString(${segment.sql}), ${sqlSentinel(NULL_SEGMENT)})`;
}

/**
 * The segment of a row: its value when it is among the top `max_segments` by rows over the same
 * rows the series reads (the span and filters; ties by value, so the choice is stable), else
 * `other`. An IN subquery, not a join or window: ClickHouse 18.16 runs it as a set.
 */
function segmentSql(segment: SeriesSegment, from: string, where: string): string {
  const v = segmentValueSql(segment);
  const top = `SELECT ${v} FROM ${from} WHERE ${where} GROUP BY ${v} ORDER BY count() DESC, ${v} LIMIT ${segment.max_segments}`;
  return `if(${v} IN (${top}), ${v}, ${sqlSentinel(OTHER_SEGMENT)})`;
}
