// A series query's rows -> one dense series per anomaly check, a value per bucket of the span,
// oldest first. A bucket without rows is absent from the rows: it reads 0 for counts and sums
// and missing (NaN) for averages, extremes and quantiles, as does a bucket whose rows hold no
// value (a min over only NULLs). Float64Array keeps a replica's cache of them compact.
import type { AnomalyGrain } from "../catalog/types.js";
import type { Cadence } from "../plan/cadence-query.js";
import type { SeriesGroup, SeriesOutput, SeriesSpan } from "../plan/series-query.js";
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
  /** by check key */
  checks: Map<string, CheckSeries>;
}

/** What one grain of a group read: its series (null when the window holds no rows at all). */
export interface GrainReading {
  grain: AnomalyGrain;
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
 * The check series of one grain from its queries' rows (several queries when it was split).
 * `oldest`: the table's oldest row in the history window (unix seconds). Buckets that start
 * before it are missing, not 0: a table loaded for 3 days has no history of 53 empty days
 * before them, and the bucket it started in is only partly covered.
 */
export function readSeries(
  span: SeriesSpan,
  answers: readonly { outputs: readonly SeriesOutput[]; rows: readonly Record<string, unknown>[] }[],
  oldest: number | null = null,
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
      const values = new Float64Array(n).fill(output.empty === 0 ? 0 : Number.NaN);
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
 * The same series over a later span of the same step, without reading the table again: for a
 * table whose data has not changed since it was read, buckets that completed since then hold no
 * rows (0 for counts and sums, missing otherwise) and the oldest buckets drop out of the window.
 */
export function shiftSeries(series: GrainSeries, span: SeriesSpan): GrainSeries {
  if (span.step !== series.span.step) throw new Error(`cannot shift a series of step ${series.span.step} to step ${span.step}`);
  const n = bucketCount(span);
  const offset = Math.round((span.start - series.span.start) / span.step);
  const checks = new Map<string, CheckSeries>();
  for (const [key, check] of series.checks) {
    const values = new Float64Array(n).fill(check.empty === 0 ? 0 : Number.NaN);
    for (let i = 0; i < n; i++) {
      const from = i + offset;
      if (from >= 0 && from < check.values.length) values[i] = check.values[from]!;
    }
    checks.set(key, { values, empty: check.empty });
  }
  return { span, checks };
}

/** The starts (unix seconds) of the last `count` buckets of the span. */
export function bucketStarts(span: SeriesSpan, count: number = bucketCount(span)): number[] {
  const n = bucketCount(span);
  const take = Math.min(count, n);
  return Array.from({ length: take }, (_, i) => span.start + (n - take + i) * span.step);
}
