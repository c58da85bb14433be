// Anomaly series' verdicts in the store (anomaly_verdicts): one row per check, its buckets as
// columns in one JSON text. A scan sends only the series whose verdicts changed since the scan the replica held
// (a new bucket, late rows, feedback), and every one when the store's newest scan is another
// (a replica that did not hold them): unchanged rows are never rewritten either way.
import {
  COLUMN_BOUNDS,
  verdictBuckets,
  packedColumns,
  packedSegments,
  segmentedVerdicts,
  type PackedSegment,
  type SegmentRef,
  type SeriesVerdicts,
} from "../evaluate/series-verdicts.js";
import { checkId } from "./check-id.js";
import type { Sql } from "./sql-session.js";
import type { FinishedScan } from "./store.js";

/**
 * The columns (and the warm-up the scan read before them) as base64 of their IEEE bytes as held
 * (value f64; expected, lower, upper f32; flags u8; warm-up f64): exact (NaN included, so a
 * replica reading them draws what the scanning one does), and shorter than decimal JSON.
 */
interface Encoded {
  s: number;
  d: number;
  v: string;
  e: string;
  l: string;
  u: string;
  f: string;
  x: Record<string, string> | null;
  /** the warm-up values, f64 (absent: none) */
  w?: string;
  /** the segment this series is of (absent: the total) */
  g?: { d: string; v: string | null; o: boolean };
  /** a segmented check: its segments' series (its own columns are then empty) */
  p?: Encoded[];
}

/** A series' five columns as bytes, as packedColumns lays them out. */
type ColumnBytes = readonly [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array];

type Column = Float64Array | Float32Array | Uint8Array;

const bytesOf = (column: Column) => new Uint8Array(column.buffer, column.byteOffset, column.byteLength);
const base64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");

/**
 * Decodes base64 into `column` (a copy: the decoded buffer need not be aligned). A band column
 * of doubles is a row written before bands were kept as f32: rounded, as a scan now would.
 */
function decodeInto(column: Column, text: string): void {
  const bytes = Buffer.from(text, "base64");
  if (column instanceof Float32Array && bytes.length === 8 * column.length) {
    const doubles = new Float64Array(column.length);
    bytesOf(doubles).set(bytes);
    column.set(doubles);
    return;
  }
  if (bytes.length !== column.byteLength)
    throw new Error(`stored verdicts: a column of ${bytes.length} bytes, ${column.byteLength} expected`);
  bytesOf(column).set(bytes);
}

export function encodeVerdicts(v: SeriesVerdicts): string {
  return JSON.stringify(encoded(v));
}

function encoded(v: SeriesVerdicts): Encoded {
  const columns: ColumnBytes = [bytesOf(v.value), bytesOf(v.expected), bytesOf(v.lower), bytesOf(v.upper), bytesOf(v.flags)];
  const e = encodedSeries(v.start, v.step, columns, v.excluded, v.segment);
  if (v.warm_up && v.warm_up.length > 0) e.w = base64(bytesOf(v.warm_up));
  const packed = v.packed_segments;
  // A first scan writes some 37,000 segments' series: each is encoded straight from the packed
  // bytes, as unpacking it (a copy of its columns) only to encode it doubled the scan's buffers.
  if (packed)
    e.p = Array.from(packedSegments(packed), (s) => encodedSeries(s.start, s.step, packedColumnBytes(packed, s), s.excluded, s.segment));
  return e;
}

/** Where a packed segment's columns lie in the packed bytes (views, no copy). */
function packedColumnBytes(bytes: Uint8Array, { columnsAt: at, n }: PackedSegment): ColumnBytes {
  const span = (k: number) => bytes.subarray(at + COLUMN_BOUNDS[k]! * n, at + COLUMN_BOUNDS[k + 1]! * n);
  return [span(0), span(1), span(2), span(3), span(4)];
}

/**
 * One series as stored, whether its columns are its own or a packed segment's: one builder, so
 * the keys always come in the same order (a row is rewritten only when its text differs).
 */
function encodedSeries(
  start: number,
  step: number,
  columns: ColumnBytes,
  excluded: Iterable<readonly [number, string]> | null,
  segment: SegmentRef | null | undefined,
): Encoded {
  const e: Encoded = {
    s: start,
    d: step,
    v: base64(columns[0]),
    e: base64(columns[1]),
    l: base64(columns[2]),
    u: base64(columns[3]),
    f: base64(columns[4]),
    x: excluded ? Object.fromEntries(excluded) : null,
  };
  if (segment) e.g = { d: segment.dimension, v: segment.value, o: segment.other };
  return e;
}

export function decodeVerdicts(checkKey: string, text: string): SeriesVerdicts {
  return decoded(checkKey, JSON.parse(text) as Encoded);
}

function decoded(checkKey: string, e: Encoded): SeriesVerdicts {
  if (e.p)
    return segmentedVerdicts(
      checkKey,
      e.p.map((p) => decoded(checkKey, p)),
    );
  // The flags column holds one byte a bucket: its length is the bucket count.
  const columns = packedColumns(Buffer.byteLength(e.f, "base64"));
  decodeInto(columns.value, e.v);
  decodeInto(columns.expected, e.e);
  decodeInto(columns.lower, e.l);
  decodeInto(columns.upper, e.u);
  decodeInto(columns.flags, e.f);
  let warmUp: Float64Array | undefined;
  if (e.w !== undefined) decodeInto((warmUp = new Float64Array(Buffer.byteLength(e.w, "base64") / 8)), e.w);
  return {
    check_key: checkKey,
    start: e.s,
    step: e.d,
    ...columns,
    excluded: e.x ? new Map(Object.entries(e.x).map(([i, r]) => [Number(i), r])) : null,
    ...(e.g ? { segment: { dimension: e.g.d, value: e.g.v, other: e.g.o } } : {}),
    ...(warmUp ? { warm_up: warmUp } : {}),
  };
}

/**
 * Series per statement: some 400 KB of text. The driver builds each statement in buffers it
 * grows by copying, garbage the collector is slow to reclaim: 500 a statement (2 MB) put about
 * 30 MB of them beside the scan's results at the end of a first scan at 10,000 metrics, the
 * daemon's peak resident set; 100 a statement does not show (a first scan writes about 30 MB).
 */
const CHUNK = 100;

/**
 * Upserts `verdicts`; a row whose text is the same is left alone. Each series' text is a
 * parameter of its own (VALUES), not an element of a text[] as the other bulk writes send
 * theirs (unnest.ts): the driver escapes every quote of an array element, two copies of each
 * text, and the JSON holds many (sampled in a first scan at 10,000 metrics: 82 MB of garbage;
 * the scan's store write went 2.2 -> 1.65 s).
 */
export async function upsertVerdicts(sql: Sql, verdicts: Iterable<SeriesVerdicts>, by: string, at: Date): Promise<void> {
  const all = [...verdicts];
  for (let start = 0; start < all.length; start += CHUNK) {
    const chunk = all.slice(start, start + CHUNK);
    // $1, $2: the scan and the time, shared; then three a row.
    const params: (string | number)[] = [by, at.toISOString()];
    const rows = chunk.map((v) => {
      params.push(checkId(v.check_key), encodeVerdicts(v), verdictBuckets(v));
      const p = params.length;
      return `($${p - 2}::bigint, $${p - 1}::text, $${p}::int4, $1::text, $2::timestamptz)`;
    });
    await sql(
      `INSERT INTO "anomaly_verdicts" ("check_id", "verdicts", "buckets", "scan_id", "updated_at") VALUES ${rows.join(", ")}
       ON CONFLICT ("check_id") DO UPDATE SET "verdicts" = EXCLUDED."verdicts", "buckets" = EXCLUDED."buckets",
         "scan_id" = EXCLUDED."scan_id", "updated_at" = EXCLUDED."updated_at"
       WHERE "anomaly_verdicts"."verdicts" IS DISTINCT FROM EXCLUDED."verdicts"`,
      params,
    );
  }
}

/** In completeScan's transaction; `previousScanId` is the store's newest succeeded scan before this one. */
export async function writeAnomalyVerdicts(sql: Sql, scan: FinishedScan, at: Date, previousScanId: string | null): Promise<void> {
  const verdicts = scan.anomalies?.verdicts;
  if (!verdicts) return;
  const incremental = verdicts.basis !== null && verdicts.basis === previousScanId;
  if (incremental) {
    await upsertVerdicts(
      sql,
      verdicts.changed.flatMap((key) => verdicts.all.get(key) ?? []),
      scan.scan_id,
      at,
    );
    if (verdicts.removed.length > 0)
      await sql(`DELETE FROM "anomaly_verdicts" WHERE "check_id" = ANY($1::bigint[])`, [verdicts.removed.map(checkId)]);
    return;
  }
  // The replica did not hold the store's verdicts: all of them, and none of a series this scan did not score.
  await upsertVerdicts(sql, verdicts.all.values(), scan.scan_id, at);
  await sql(`DELETE FROM "anomaly_verdicts" WHERE NOT ("check_id" = ANY($1::bigint[]))`, [[...verdicts.all.keys()].map(checkId)]);
}

/** The verdicts held for these checks (absent: none), by key. */
export async function readAnomalyVerdicts(sql: Sql, checkKeys: readonly string[]): Promise<Map<string, SeriesVerdicts>> {
  const found = new Map<string, SeriesVerdicts>();
  if (checkKeys.length === 0) return found;
  const byId = new Map(checkKeys.map((key) => [checkId(key), key]));
  const { rows } = await sql<{ check_id: string; verdicts: string }>(
    `SELECT "check_id"::text AS "check_id", "verdicts" FROM "anomaly_verdicts" WHERE "check_id" = ANY($1::bigint[])`,
    [[...byId.keys()]],
  );
  for (const row of rows) {
    const key = byId.get(row.check_id);
    if (key !== undefined) found.set(key, decodeVerdicts(key, row.verdicts));
  }
  return found;
}
