// Anomaly series' verdicts in the store (anomaly_verdicts): one row per check, its buckets as
// columns in one JSON text. A scan sends only the series whose verdicts changed since the scan the replica held
// (a new bucket, late rows, feedback), and every one when the store's newest scan is another
// (a replica that did not hold them): unchanged rows are never rewritten either way.
import {
  bucketCount,
  packedColumns,
  packedSegments,
  segmentedVerdicts,
  type PackedSegment,
  type SeriesVerdicts,
} from "../evaluate/series-verdicts.js";
import { checkId } from "./check-id.js";
import type { Sql } from "./sql-session.js";
import type { FinishedScan } from "./store.js";

/**
 * The columns as base64 of their IEEE doubles: exact (NaN included, so a replica reading them
 * draws what the scanning one does), and a third shorter than decimal JSON.
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
  /** the segment this series is of (absent: the total) */
  g?: { d: string; v: string | null; o: boolean };
  /** a segmented check: its segments' series (its own columns are then empty) */
  p?: Encoded[];
}

const toBase64 = (column: Float64Array | Uint8Array) => Buffer.from(column.buffer, column.byteOffset, column.byteLength).toString("base64");
/** Decodes base64 into `column` (a copy: the decoded buffer need not be 8-byte aligned). */
function decodeInto(column: Float64Array | Uint8Array, text: string): void {
  const bytes = Buffer.from(text, "base64");
  if (bytes.length !== column.byteLength)
    throw new Error(`stored verdicts: a column of ${bytes.length} bytes, ${column.byteLength} expected`);
  new Uint8Array(column.buffer, column.byteOffset, column.byteLength).set(bytes);
}

export function encodeVerdicts(v: SeriesVerdicts): string {
  return JSON.stringify(encoded(v));
}

function encoded(v: SeriesVerdicts): Encoded {
  const e: Encoded = {
    s: v.start,
    d: v.step,
    v: toBase64(v.value),
    e: toBase64(v.expected),
    l: toBase64(v.lower),
    u: toBase64(v.upper),
    f: toBase64(v.flags),
    x: v.excluded ? Object.fromEntries(v.excluded) : null,
  };
  if (v.segment) e.g = { d: v.segment.dimension, v: v.segment.value, o: v.segment.other };
  if (v.packed_segments) e.p = Array.from(packedSegments(v.packed_segments), (s) => encodedSegment(v.packed_segments!, s));
  return e;
}

/**
 * A packed segment's series encoded straight from the packed bytes, as `encoded` encodes an
 * unpacked one: a first scan writes some 37,000 segments' series, and unpacking each (a copy of
 * its columns) only to encode it doubled the scan's buffers at its peak.
 */
function encodedSegment(bytes: Uint8Array, s: PackedSegment): Encoded {
  const base64 = (from: number, length: number) => Buffer.from(bytes.buffer, bytes.byteOffset + from, length).toString("base64");
  const at = s.columnsAt;
  const e: Encoded = {
    s: s.start,
    d: s.step,
    v: base64(at, 8 * s.n),
    e: base64(at + 8 * s.n, 8 * s.n),
    l: base64(at + 16 * s.n, 8 * s.n),
    u: base64(at + 24 * s.n, 8 * s.n),
    f: base64(at + 32 * s.n, s.n),
    x: s.excluded ? Object.fromEntries(s.excluded) : null,
  };
  if (s.segment) e.g = { d: s.segment.dimension, v: s.segment.value, o: s.segment.other };
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
  return {
    check_key: checkKey,
    start: e.s,
    step: e.d,
    ...columns,
    excluded: e.x ? new Map(Object.entries(e.x).map(([i, r]) => [Number(i), r])) : null,
    ...(e.g ? { segment: { dimension: e.g.d, value: e.g.v, other: e.g.o } } : {}),
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
      params.push(checkId(v.check_key), encodeVerdicts(v), bucketCount(v));
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
