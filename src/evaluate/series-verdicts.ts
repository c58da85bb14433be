// One anomaly series' verdicts, bucket by bucket, as the scan scored them: what the chart draws
// (value, expected, band, flag, feedback, exclusion) kept with the read model and the store, so
// no read scores a series or reads the warehouse. Columns of typed arrays, not an object per
// bucket: 10,000 metrics hold some 700,000 buckets. Pure.
import type { SeriesVerdict } from "../anomaly/types.js";

/** Which segment a series is: one value of a dimension, or (other) the values beyond the top ones. */
export interface SegmentRef {
  dimension: string;
  /** the value as text; null: NULL (or, when `other`, the folded rest) */
  value: string | null;
  other: boolean;
}

export interface SeriesVerdicts {
  check_key: string;
  /** the segment this series is of; absent or null: the check's total series */
  segment?: SegmentRef | null;
  /**
   * A segmented check: one SeriesVerdicts per segment (worst first), and no buckets of its own.
   * Absent or null: a check of one series.
   */
  segments?: readonly SeriesVerdicts[] | null;
  /** epoch ms of the first bucket, and between buckets (buckets are evenly spaced, oldest first) */
  start: number;
  step: number;
  /** NaN = null (missing value, or not scored) */
  value: Float64Array;
  expected: Float64Array;
  lower: Float64Array;
  upper: Float64Array;
  /** bit 1: anomalous, bit 2: marked expected (feedback) */
  flags: Uint8Array;
  /** bucket index -> why the bucket was left out of training; null when none is */
  excluded: ReadonlyMap<number, string> | null;
}

export const ANOMALOUS = 1;
export const FEEDBACK = 2;

export type VerdictColumns = Pick<SeriesVerdicts, "value" | "expected" | "lower" | "upper" | "flags">;

/**
 * The five columns of n buckets as views on one buffer: a typed array costs some 180 bytes of
 * heap besides its data, and a daemon holds tens of thousands of series (segments), so one
 * buffer per series instead of five.
 */
export function packedColumns(n: number): VerdictColumns {
  const buffer = new ArrayBuffer(33 * n);
  return {
    value: new Float64Array(buffer, 0, n),
    expected: new Float64Array(buffer, 8 * n, n),
    lower: new Float64Array(buffer, 16 * n, n),
    upper: new Float64Array(buffer, 24 * n, n),
    flags: new Uint8Array(buffer, 32 * n, n),
  };
}

const finite = (v: number | null): number => (v !== null && Number.isFinite(v) ? v : NaN);
const NO_COLUMNS = packedColumns(0);

/** A scored series (src/anomaly) as kept; null when it has no buckets or they are not evenly spaced. */
export function toSeriesVerdicts(checkKey: string, verdict: SeriesVerdict): SeriesVerdicts | null {
  const buckets = verdict.buckets;
  if (buckets.length === 0) return null;
  const start = buckets[0]!.start;
  const step = buckets.length > 1 ? buckets[1]!.start - start : 0;
  const excluded = new Map<number, string>();
  const columns = packedColumns(buckets.length);
  for (const [i, b] of buckets.entries()) {
    if (b.start !== start + i * step) return null;
    columns.flags[i] = (b.anomalous ? ANOMALOUS : 0) | (b.feedback ? FEEDBACK : 0);
    columns.value[i] = finite(b.value);
    columns.expected[i] = finite(b.expected);
    columns.lower[i] = finite(b.lower);
    columns.upper[i] = finite(b.upper);
    // `excluded` is the anomaly stage's (a bucket left out of training), where it says so.
    const reason = b.excluded;
    if (typeof reason === "string") excluded.set(i, reason);
  }
  return {
    check_key: checkKey,
    start,
    step,
    ...columns,
    excluded: excluded.size > 0 ? excluded : null,
  };
}

const sameColumn = (a: Float64Array, b: Float64Array): boolean => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
};

/** A segmented check's verdicts: its segments' series, each with its `segment`. */
export function segmentedVerdicts(checkKey: string, segments: readonly SeriesVerdicts[]): SeriesVerdicts {
  return {
    check_key: checkKey,
    start: 0,
    step: 0,
    ...NO_COLUMNS,
    excluded: null,
    segments,
  };
}

/** The series a check's verdicts hold: its own, or each segment's. */
export function seriesOf(v: SeriesVerdicts): readonly SeriesVerdicts[] {
  return v.segments ?? [v];
}

const sameSegment = (a: SegmentRef | null | undefined, b: SegmentRef | null | undefined): boolean =>
  (a ?? null) === (b ?? null) || (!!a && !!b && a.dimension === b.dimension && a.value === b.value && a.other === b.other);

/** True when both hold the same buckets with the same verdicts. */
export function sameVerdicts(a: SeriesVerdicts | undefined, b: SeriesVerdicts | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  if (a.check_key !== b.check_key || a.start !== b.start || a.step !== b.step) return false;
  if (!sameSegment(a.segment, b.segment)) return false;
  const sa = a.segments ?? null;
  const sb = b.segments ?? null;
  if (sa !== null || sb !== null) {
    if (sa === null || sb === null || sa.length !== sb.length || sa.some((x, i) => !sameVerdicts(x, sb[i]))) return false;
  }
  if (a.flags.length !== b.flags.length || a.flags.some((f, i) => f !== b.flags[i])) return false;
  const ea = a.excluded ?? new Map<number, string>();
  const eb = b.excluded ?? new Map<number, string>();
  if (ea.size !== eb.size || [...ea].some(([i, r]) => eb.get(i) !== r)) return false;
  return sameColumn(a.value, b.value) && sameColumn(a.expected, b.expected) && sameColumn(a.lower, b.lower) && sameColumn(a.upper, b.upper);
}

/** Epoch ms of bucket `i`. */
export const bucketStart = (v: SeriesVerdicts, i: number): number => v.start + i * v.step;

/** Index of the bucket starting at `startMs`, or -1. */
export function bucketIndex(v: SeriesVerdicts, startMs: number): number {
  if (v.step === 0) return startMs === v.start ? 0 : -1;
  const i = (startMs - v.start) / v.step;
  return Number.isInteger(i) && i >= 0 && i < v.flags.length ? i : -1;
}
