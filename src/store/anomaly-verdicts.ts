// Anomaly series' verdicts in the store (anomaly_verdicts): one row per check, its buckets as JSON
// columns. A scan sends only the series whose verdicts changed since the scan the replica held
// (a new bucket, late rows, feedback), and every one when the store's newest scan is another
// (a replica that did not hold them): unchanged rows are never rewritten either way.
import type { SeriesVerdicts } from "../evaluate/series-verdicts.js";
import { checkId } from "./check-id.js";
import type { Sql } from "./sql-session.js";
import type { FinishedScan } from "./store.js";
import { insertRows } from "./unnest.js";

interface Encoded {
  s: number;
  d: number;
  v: (number | null)[];
  e: (number | null)[];
  l: (number | null)[];
  u: (number | null)[];
  f: number[];
  x: Record<string, string> | null;
}

const nullable = (column: Float64Array) => Array.from(column, (v) => (Number.isFinite(v) ? v : null));
const column = (values: readonly (number | null)[]) => Float64Array.from(values, (v) => (v === null ? NaN : v));

export function encodeVerdicts(v: SeriesVerdicts): string {
  const encoded: Encoded = {
    s: v.start,
    d: v.step,
    v: nullable(v.value),
    e: nullable(v.expected),
    l: nullable(v.lower),
    u: nullable(v.upper),
    f: [...v.flags],
    x: v.excluded ? Object.fromEntries(v.excluded) : null,
  };
  return JSON.stringify(encoded);
}

export function decodeVerdicts(checkKey: string, text: string): SeriesVerdicts {
  const e = JSON.parse(text) as Encoded;
  return {
    check_key: checkKey,
    start: e.s,
    step: e.d,
    value: column(e.v),
    expected: column(e.e),
    lower: column(e.l),
    upper: column(e.u),
    flags: Uint8Array.from(e.f),
    excluded: e.x ? new Map(Object.entries(e.x).map(([i, r]) => [Number(i), r])) : null,
  };
}

const COLUMNS = { check_id: "bigint", verdicts: "text", buckets: "int4", scan_id: "text", updated_at: "timestamptz" };

/** Upserts `verdicts`; a row whose JSON is the same is left alone. */
export async function upsertVerdicts(sql: Sql, verdicts: Iterable<SeriesVerdicts>, by: string, at: Date): Promise<void> {
  const rows = [...verdicts].map((v) => [checkId(v.check_key), encodeVerdicts(v), v.flags.length, by, at.toISOString()]);
  if (rows.length === 0) return;
  await insertRows(sql, {
    table: "anomaly_verdicts",
    columns: COLUMNS,
    rows,
    onConflict: `ON CONFLICT ("check_id") DO UPDATE SET "verdicts" = EXCLUDED."verdicts", "buckets" = EXCLUDED."buckets",
                   "scan_id" = EXCLUDED."scan_id", "updated_at" = EXCLUDED."updated_at"
                 WHERE "anomaly_verdicts"."verdicts" IS DISTINCT FROM EXCLUDED."verdicts"`,
  });
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
