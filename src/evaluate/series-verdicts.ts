// One anomaly series' verdicts, bucket by bucket, as the scan scored them: what the chart draws
// (value, expected, band, flag, feedback, exclusion) kept with the read model and the store, so
// no read scores a series or reads the warehouse. Columns of typed arrays, not an object per
// bucket: 10,000 metrics hold some 700,000 buckets. Pure.
import type { SeriesVerdict } from "../anomaly/types.js";

export interface SeriesVerdicts {
  check_key: string;
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

const column = (values: readonly (number | null)[]): Float64Array =>
  Float64Array.from(values, (v) => (v !== null && Number.isFinite(v) ? v : NaN));

/** A scored series (src/anomaly) as kept; null when it has no buckets or they are not evenly spaced. */
export function toSeriesVerdicts(checkKey: string, verdict: SeriesVerdict): SeriesVerdicts | null {
  const buckets = verdict.buckets;
  if (buckets.length === 0) return null;
  const start = buckets[0]!.start;
  const step = buckets.length > 1 ? buckets[1]!.start - start : 0;
  const excluded = new Map<number, string>();
  const flags = new Uint8Array(buckets.length);
  for (const [i, b] of buckets.entries()) {
    if (b.start !== start + i * step) return null;
    flags[i] = (b.anomalous ? ANOMALOUS : 0) | (b.feedback ? FEEDBACK : 0);
    // `excluded` is the anomaly stage's (a bucket left out of training), where it says so.
    const reason = b.excluded;
    if (typeof reason === "string") excluded.set(i, reason);
  }
  return {
    check_key: checkKey,
    start,
    step,
    value: column(buckets.map((b) => b.value)),
    expected: column(buckets.map((b) => b.expected)),
    lower: column(buckets.map((b) => b.lower)),
    upper: column(buckets.map((b) => b.upper)),
    flags,
    excluded: excluded.size > 0 ? excluded : null,
  };
}

const sameColumn = (a: Float64Array, b: Float64Array): boolean => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
};

/** True when both hold the same buckets with the same verdicts. */
export function sameVerdicts(a: SeriesVerdicts | undefined, b: SeriesVerdicts | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  if (a.check_key !== b.check_key || a.start !== b.start || a.step !== b.step) return false;
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
