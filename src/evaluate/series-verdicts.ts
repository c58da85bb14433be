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
   * A segmented check: its segments' series (worst first), packed (packSegments; seriesOf
   * unpacks them), and no buckets of its own. Absent or null: a check of one series.
   */
  packed_segments?: Uint8Array | null;
  /** epoch ms of the first bucket, and between buckets (buckets are evenly spaced, oldest first) */
  start: number;
  step: number;
  /** NaN = null (missing value, or not scored) */
  value: Float64Array;
  /**
   * The band in single precision (float32: 7 significant digits): an estimate, whose further
   * digits say nothing, and a fifth less memory for the 1.7 million buckets of 10,000 metrics.
   * The value stays exact (it is the warehouse's); the flags were set at full precision.
   */
  expected: Float32Array;
  lower: Float32Array;
  upper: Float32Array;
  /** bit 1: anomalous, bit 2: marked expected (feedback) */
  flags: Uint8Array;
  /** bucket index -> why the bucket was left out of training; null when none is */
  excluded: ReadonlyMap<number, string> | null;
  /**
   * The values the scan scored before `start` (its warm-up, check-window.ts), oldest first, so
   * feedback scores the series again as the scan did. Absent: none (a segment's series,
   * never scored again; a table younger than its window).
   */
  warm_up?: Float64Array;
}

export const ANOMALOUS = 1;
export const FEEDBACK = 2;

export type VerdictColumns = Pick<SeriesVerdicts, "value" | "expected" | "lower" | "upper" | "flags">;

/**
 * Where each column starts, in bytes a bucket times the bucket count, in packedColumns' order
 * (value f64; expected, lower, upper f32; flags u8), and the end: the one layout of the buffer,
 * its packed copies and the store's encoding (store/anomaly-verdicts.ts).
 */
export const COLUMN_BOUNDS = [0, 8, 12, 16, 20, 21] as const;
/** Bytes a bucket takes. */
export const BUCKET_BYTES = COLUMN_BOUNDS[5];

/**
 * The five columns of n buckets as views on one buffer: a typed array costs some 180 bytes of
 * heap besides its data, and a daemon holds tens of thousands of series (segments), so one
 * buffer per series instead of five.
 */
export function packedColumns(n: number): VerdictColumns {
  const buffer = new ArrayBuffer(BUCKET_BYTES * n);
  const [value, expected, lower, upper, flags] = COLUMN_BOUNDS;
  return {
    value: new Float64Array(buffer, value * n, n),
    expected: new Float32Array(buffer, expected * n, n),
    lower: new Float32Array(buffer, lower * n, n),
    upper: new Float32Array(buffer, upper * n, n),
    flags: new Uint8Array(buffer, flags * n, n),
  };
}

/**
 * The columns with `value` given (the scan's reading of the window, which the series cache holds
 * anyway: a view on it, not a copy) and the other four on one buffer of their own.
 */
function columnsOver(value: Float64Array): VerdictColumns {
  const n = value.length;
  const buffer = new ArrayBuffer((BUCKET_BYTES - COLUMN_BOUNDS[1]) * n);
  const at = (bound: number) => (bound - COLUMN_BOUNDS[1]) * n;
  return {
    value,
    expected: new Float32Array(buffer, at(COLUMN_BOUNDS[1]), n),
    lower: new Float32Array(buffer, at(COLUMN_BOUNDS[2]), n),
    upper: new Float32Array(buffer, at(COLUMN_BOUNDS[3]), n),
    flags: new Uint8Array(buffer, at(COLUMN_BOUNDS[4]), n),
  };
}

/** True when `read` holds each bucket's value as the value column would (NaN for none). */
function readsAs(read: Float64Array, buckets: SeriesVerdict["buckets"]): boolean {
  if (read.length !== buckets.length) return false;
  for (let i = 0; i < read.length; i++) if (!Object.is(read[i], finite(buckets[i]!.value))) return false;
  return true;
}

const finite = (v: number | null): number => (v !== null && Number.isFinite(v) ? v : NaN);
const NO_COLUMNS = packedColumns(0);

/**
 * A scored series (src/anomaly) as kept; null when it has no buckets or they are not evenly spaced.
 * `read`: the window's values as the scan read them (check-window.ts), kept as the value column
 * when they are the buckets' values.
 */
export function toSeriesVerdicts(
  checkKey: string,
  verdict: SeriesVerdict,
  warmUp?: Float64Array,
  read?: Float64Array,
): SeriesVerdicts | null {
  const buckets = verdict.buckets;
  if (buckets.length === 0) return null;
  const start = buckets[0]!.start;
  const step = buckets.length > 1 ? buckets[1]!.start - start : 0;
  const excluded = new Map<number, string>();
  const columns = read && readsAs(read, buckets) ? columnsOver(read) : packedColumns(buckets.length);
  for (const [i, b] of buckets.entries()) {
    if (b.start !== start + i * step) return null;
    columns.flags[i] = (b.anomalous ? ANOMALOUS : 0) | (b.feedback ? FEEDBACK : 0);
    if (columns.value !== read) columns.value[i] = finite(b.value);
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
    ...(warmUp !== undefined && warmUp.length > 0 ? { warm_up: warmUp } : {}),
  };
}

const sameColumn = (a: Float64Array | Float32Array, b: Float64Array | Float32Array): boolean => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
};

/** A segmented check's verdicts: its segments' series, each with its `segment`, packed. */
export function segmentedVerdicts(checkKey: string, segments: readonly SeriesVerdicts[]): SeriesVerdicts {
  return {
    check_key: checkKey,
    start: 0,
    step: 0,
    ...NO_COLUMNS,
    excluded: null,
    packed_segments: packSegments(segments),
  };
}

/** The series a check's verdicts hold: its own, or each segment's (unpacked, a copy). */
export function seriesOf(v: SeriesVerdicts): readonly SeriesVerdicts[] {
  return v.packed_segments ? unpackSegments(v.check_key, v.packed_segments) : [v];
}

/** True for a segmented check's verdicts (its series are its segments'). */
export const isSegmented = (v: SeriesVerdicts): boolean => !!v.packed_segments;

/*
 * A segmented check holds up to max_segments + 2 series, and as objects each costs some 650 bytes
 * of heap besides its data (the verdicts object, its segment, five typed-array views and their
 * buffer): at 1,000 segmented metrics, 25 MB of a 256 MB heap held between scans. Packed, a
 * check is one byte array, unpacked when a chart or the store needs its series (a copy of a few
 * kilobytes). Per series: f64 start, f64 step, u32 buckets, u32 meta bytes, the meta JSON
 * (segment, excluded buckets), then the columns as packedColumns lays them out (BUCKET_BYTES a bucket).
 */
const utf8 = new TextEncoder();
const utf8Text = new TextDecoder();

interface PackedMeta {
  g: SegmentRef | null;
  x: [number, string][] | null;
}

function packSegments(series: readonly SeriesVerdicts[]): Uint8Array {
  const metas = series.map((s) =>
    utf8.encode(JSON.stringify({ g: s.segment ?? null, x: s.excluded ? [...s.excluded] : null } satisfies PackedMeta)),
  );
  let size = 4;
  series.forEach((s, i) => (size += 24 + metas[i]!.length + BUCKET_BYTES * s.flags.length));
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, series.length, true);
  let at = 4;
  series.forEach((s, i) => {
    const meta = metas[i]!;
    view.setFloat64(at, s.start, true);
    view.setFloat64(at + 8, s.step, true);
    view.setUint32(at + 16, s.flags.length, true);
    view.setUint32(at + 20, meta.length, true);
    bytes.set(meta, at + 24);
    at += 24 + meta.length;
    for (const column of [s.value, s.expected, s.lower, s.upper, s.flags]) {
      bytes.set(new Uint8Array(column.buffer, column.byteOffset, column.byteLength), at);
      at += column.byteLength;
    }
  });
  return bytes;
}

/** One segment's series as packed: its header, and where its columns (BUCKET_BYTES a bucket) lie in the bytes. */
export interface PackedSegment {
  start: number;
  step: number;
  /** buckets */
  n: number;
  segment: SegmentRef | null;
  excluded: [number, string][] | null;
  /** offset of the columns (as packedColumns lays them out) in the packed bytes */
  columnsAt: number;
}

/** A segmented check's series as packed, without copying their columns (the store encodes from these). */
export function* packedSegments(bytes: Uint8Array): Generator<PackedSegment> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 4;
  for (let k = view.getUint32(0, true); k > 0; k--) {
    const n = view.getUint32(at + 16, true);
    const metaLength = view.getUint32(at + 20, true);
    const meta = JSON.parse(utf8Text.decode(bytes.subarray(at + 24, at + 24 + metaLength))) as PackedMeta;
    const columnsAt = at + 24 + metaLength;
    yield { start: view.getFloat64(at, true), step: view.getFloat64(at + 8, true), n, segment: meta.g, excluded: meta.x, columnsAt };
    at = columnsAt + BUCKET_BYTES * n;
  }
}

/** Buckets a check's verdicts hold, its segments' included (nothing unpacked). */
export function verdictBuckets(v: SeriesVerdicts): number {
  if (!v.packed_segments) return v.flags.length;
  let n = 0;
  for (const segment of packedSegments(v.packed_segments)) n += segment.n;
  return n;
}

function unpackSegments(checkKey: string, bytes: Uint8Array): SeriesVerdicts[] {
  const out: SeriesVerdicts[] = [];
  for (const { start, step, n, segment, excluded, columnsAt } of packedSegments(bytes)) {
    const columns = packedColumns(n);
    // The five columns lie in the same order in both: one copy (the bytes need not be 8-byte aligned).
    new Uint8Array(columns.value.buffer).set(bytes.subarray(columnsAt, columnsAt + BUCKET_BYTES * n));
    out.push({
      check_key: checkKey,
      start,
      step,
      ...columns,
      excluded: excluded ? new Map(excluded) : null,
      ...(segment ? { segment } : {}),
    });
  }
  return out;
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

const sameSegment = (a: SegmentRef | null | undefined, b: SegmentRef | null | undefined): boolean =>
  (a ?? null) === (b ?? null) || (!!a && !!b && a.dimension === b.dimension && a.value === b.value && a.other === b.other);

/** True when both hold the same buckets with the same verdicts. */
export function sameVerdicts(a: SeriesVerdicts | undefined, b: SeriesVerdicts | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  if (a.check_key !== b.check_key || a.start !== b.start || a.step !== b.step) return false;
  if (!sameSegment(a.segment, b.segment)) return false;
  const sa = a.packed_segments ?? null;
  const sb = b.packed_segments ?? null;
  if ((sa !== null || sb !== null) && (sa === null || sb === null || !sameBytes(sa, sb))) return false;
  if (a.flags.length !== b.flags.length || a.flags.some((f, i) => f !== b.flags[i])) return false;
  const ea = a.excluded ?? new Map<number, string>();
  const eb = b.excluded ?? new Map<number, string>();
  if (ea.size !== eb.size || [...ea].some(([i, r]) => eb.get(i) !== r)) return false;
  return (
    sameColumn(a.value, b.value) &&
    sameColumn(a.expected, b.expected) &&
    sameColumn(a.lower, b.lower) &&
    sameColumn(a.upper, b.upper) &&
    sameColumn(a.warm_up ?? NO_COLUMNS.value, b.warm_up ?? NO_COLUMNS.value)
  );
}

/** Epoch ms of bucket `i`. */
export const bucketStart = (v: SeriesVerdicts, i: number): number => v.start + i * v.step;

/** Index of the bucket starting at `startMs`, or -1. */
export function bucketIndex(v: SeriesVerdicts, startMs: number): number {
  if (v.step === 0) return startMs === v.start ? 0 : -1;
  const i = (startMs - v.start) / v.step;
  return Number.isInteger(i) && i >= 0 && i < v.flags.length ? i : -1;
}
