// A series query's rows -> one dense series per anomaly check, a value per bucket of the span,
// oldest first. A bucket without rows is absent from the rows: it reads 0 for counts and sums
// and missing (NaN) for averages, extremes and quantiles, as does a bucket whose rows hold no
// value (a min over only NULLs). Float64Array keeps a replica's cache of them compact.
import type { AnomalyGrain } from "../catalog/types.js";
import type { Cadence } from "../plan/cadence-query.js";
import { NULL_SEGMENT, OTHER_SEGMENT, type SeriesGroup, type SeriesOutput, type SeriesSpan } from "../plan/series-query.js";
import type { SeriesSegment } from "../infer/types.js";
import type { LoadView } from "./load-arrivals.js";
import type { CheckObservation, FlaggedBucket } from "./types.js";
import type { SeriesVerdicts } from "./series-verdicts.js";

export interface CheckSeries {
  /** one value per bucket of the span, oldest first; NaN = missing */
  values: Float64Array;
  /** what a bucket without rows reads as */
  empty: 0 | null;
}

/** A grain's series of one (table, timestamp) as read at one moment. */
export interface GrainSeries {
  span: SeriesSpan;
  /** by check key (empty for a segmented grain: its series are per segment) */
  checks: Map<string, CheckSeries>;
  /** a segmented grain's series: one entry per value of its dimension (absent: not segmented) */
  segments?: SegmentSeries[];
}

/** The series of one value of a segment dimension. */
export interface SegmentSeries {
  /** the value as text; null: NULL */
  value: string | null;
  /** true: the values beyond the top max_segments, folded into one series (value null) */
  other: boolean;
  /** index of the first bucket of the span with rows of this value (buckets before it are missing) */
  first: number;
  /** by check key */
  checks: Map<string, CheckSeries>;
}

/** What one grain of a group read: its series (null when the window holds no rows at all). */
export interface GrainReading {
  grain: AnomalyGrain;
  /** the segment dimension this reading splits by (absent or null: the totals) */
  segment?: SeriesSegment | null;
  series: GrainSeries | null;
  /** check key -> why ClickHouse refused its query (the check is not evaluated) */
  failed: Map<string, string>;
}

/** Everything read for one (datasource, table, timestamp column). */
export interface GroupReading {
  group: SeriesGroup;
  cadence: Cadence | null;
  /** why the cadence query could not be read (every check of the group is then not evaluated) */
  error: string | null;
  grains: GrainReading[];
  /**
   * The table's fingerprint when it was read (incremental scans: plan/fingerprint-query.ts), so a
   * later scan that finds the same one can judge this reading again instead of re-reading.
   */
  fingerprint?: string | null;
  /**
   * How each series check of this reading was judged, with the feedback it was judged with: a
   * later scan judging the same series (an unchanged table, the same buckets) with the same
   * feedback takes these instead of scoring again.
   */
  held?: Map<string, HeldJudgement>;
  /** freshness_anomaly: the table's loads as this scan saw them (absent: no history kept) */
  loads?: LoadView;
}

export interface HeldJudgement {
  /** the check's feedback when judged (feedbackSignature) */
  feedback: string;
  observation: CheckObservation;
  flagged: readonly FlaggedBucket[];
  judged: boolean;
  verdicts?: SeriesVerdicts | null;
}

const num = (value: unknown): number => {
  if (value === null || value === undefined || value === "") return Number.NaN;
  const n = Number(value);
  return Number.isFinite(n) ? n : Number.NaN;
};

export function bucketCount(span: SeriesSpan): number {
  return Math.max(0, Math.round((span.end - span.start) / span.step));
}

/**
 * Hands out the series of one grain as consecutive views on one buffer: a replica keeps them
 * between scans (series-cache.ts), some 43,000 at 10,000 metrics with segments, and a buffer of
 * their own each cost an ArrayBuffer object and a small allocation apiece (malloc keeps what it
 * cannot give back between those).
 */
export function valueBlock(arrays: number, n: number): (fill: number) => Float64Array {
  const block = new Float64Array(arrays * n);
  let next = 0;
  return (fill) => {
    if (next + n > block.length) throw new Error(`valueBlock: more than ${arrays} series of ${n} values asked for`);
    const values = block.subarray(next, next + n).fill(fill);
    next += n;
    return values;
  };
}

const seriesOutputs = (answers: readonly { outputs: readonly SeriesOutput[] }[]): number =>
  answers.reduce((k, a) => k + a.outputs.filter((o) => o.part !== "count").length, 0);

/**
 * The check series of one grain from its queries' rows (several queries when it was split).
 * `oldest`: the table's oldest row in the history window (unix seconds). Buckets that start
 * before it are missing, not 0: a table loaded for 3 days has no history of 53 empty days
 * before them, and the bucket it started in is only partly covered.
 */
export function readSeries(
  span: SeriesSpan,
  answers: readonly { outputs: readonly SeriesOutput[]; rows: readonly Record<string, unknown>[] }[],
  oldest: number | null = null,
  take: (fill: number) => Float64Array = valueBlock(seriesOutputs(answers), bucketCount(span)),
): GrainSeries {
  const n = bucketCount(span);
  const before = oldest === null ? 0 : Math.max(0, Math.min(n, Math.ceil((oldest - span.start) / span.step)));
  const checks = new Map<string, CheckSeries>();
  const counts = new Map<string, Float64Array>();
  for (const { outputs, rows } of answers) {
    const index = rows.map((row) => {
      const i = (num(row.b) - span.start) / span.step;
      return Number.isInteger(i) && i >= 0 && i < n ? i : -1;
    });
    for (const output of outputs) {
      // Counts only mark the buckets without a value (below): not kept, not in the block.
      const fill = output.empty === 0 ? 0 : Number.NaN;
      const values = output.part === "count" ? new Float64Array(n).fill(fill) : take(fill);
      rows.forEach((row, r) => {
        const i = index[r]!;
        if (i >= 0) values[i] = num(row[output.alias]);
      });
      if (output.part === "count") counts.set(output.test_key, values);
      else checks.set(output.test_key, { values, empty: output.empty });
    }
  }
  // A min/max/quantile over no value reads as the type's default (0): missing instead.
  for (const [key, count] of counts) {
    const series = checks.get(key);
    if (!series) continue;
    count.forEach((c, i) => {
      if (!(c > 0)) series.values[i] = Number.NaN;
    });
  }
  if (before > 0) for (const series of checks.values()) series.values.fill(Number.NaN, 0, before);
  return { span, checks };
}

/**
 * A segmented grain's series from its queries' rows (`s`: the segment of each row): readSeries
 * per segment value. A value's buckets before its first row are missing, not 0: a country added
 * last week has no history of zeros (a new value is learning, never a drop).
 */
export function readSegmentedSeries(
  span: SeriesSpan,
  answers: readonly { outputs: readonly SeriesOutput[]; rows: readonly Record<string, unknown>[] }[],
  oldest: number | null = null,
): GrainSeries {
  const bySegment = new Map<string, { outputs: readonly SeriesOutput[]; rows: Record<string, unknown>[] }[]>();
  for (const [a, { rows }] of answers.entries()) {
    for (const row of rows) {
      const s = typeof row.s === "string" ? row.s : NULL_SEGMENT;
      let parts = bySegment.get(s);
      if (!parts) bySegment.set(s, (parts = answers.map((x) => ({ outputs: x.outputs, rows: [] }))));
      parts[a]!.rows.push(row);
    }
  }
  const n = bucketCount(span);
  const segments: SegmentSeries[] = [];
  const take = valueBlock(bySegment.size * seriesOutputs(answers), n);
  for (const [s, parts] of [...bySegment].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const series = readSeries(span, parts, oldest, take);
    let first = n;
    for (const part of parts)
      for (const row of part.rows) {
        const i = (num(row.b) - span.start) / span.step;
        if (Number.isInteger(i) && i >= 0 && i < n && num(row.total) > 0) first = Math.min(first, i);
      }
    for (const check of series.checks.values()) check.values.fill(Number.NaN, 0, first);
    const other = s === OTHER_SEGMENT;
    segments.push({ value: other || s === NULL_SEGMENT ? null : s, other, first, checks: series.checks });
  }
  return { span, checks: new Map(), segments };
}

function shiftChecks(
  checks: ReadonlyMap<string, CheckSeries>,
  n: number,
  offset: number,
  take: (fill: number) => Float64Array,
): Map<string, CheckSeries> {
  const shifted = new Map<string, CheckSeries>();
  for (const [key, check] of checks) {
    const values = take(check.empty === 0 ? 0 : Number.NaN);
    for (let i = 0; i < n; i++) {
      const from = i + offset;
      if (from >= 0 && from < check.values.length) values[i] = check.values[from]!;
    }
    shifted.set(key, { values, empty: check.empty });
  }
  return shifted;
}

/**
 * The same series over a later span of the same step, without reading the table again: for a
 * table whose data has not changed since it was read, buckets that completed since then hold no
 * rows (0 for counts and sums, missing otherwise) and the oldest buckets drop out of the window.
 */
export function shiftSeries(series: GrainSeries, span: SeriesSpan): GrainSeries {
  if (span.step !== series.span.step) throw new Error(`cannot shift a series of step ${series.span.step} to step ${span.step}`);
  const n = bucketCount(span);
  const offset = Math.round((span.start - series.span.start) / span.step);
  const arrays = series.checks.size + (series.segments ?? []).reduce((k, segment) => k + segment.checks.size, 0);
  const take = valueBlock(arrays, n);
  const checks = shiftChecks(series.checks, n, offset, take);
  if (series.segments === undefined) return { span, checks };
  const segments = series.segments.map((segment) => ({
    ...segment,
    first: Math.max(0, segment.first - offset),
    checks: shiftChecks(segment.checks, n, offset, take),
  }));
  return { span, checks, segments };
}

/** Every check key a grain's series holds (a segmented one's, over its segments). */
export function seriesCheckKeys(series: GrainSeries): Set<string> {
  const keys = new Set(series.checks.keys());
  for (const segment of series.segments ?? []) for (const key of segment.checks.keys()) keys.add(key);
  return keys;
}

/** Values a grain's series holds (what a replica's cache of them costs). */
export function seriesValueCount(series: GrainSeries): number {
  let n = 0;
  for (const check of series.checks.values()) n += check.values.length;
  for (const segment of series.segments ?? []) for (const check of segment.checks.values()) n += check.values.length;
  return n;
}

/** The starts (unix seconds) of the last `count` buckets of the span. */
export function bucketStarts(span: SeriesSpan, count: number = bucketCount(span)): number[] {
  const n = bucketCount(span);
  const take = Math.min(count, n);
  return Array.from({ length: take }, (_, i) => span.start + (n - take + i) * span.step);
}
