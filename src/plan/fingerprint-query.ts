// A table's fingerprint, read from ClickHouse's metadata without touching its data: for a
// MergeTree-family table, its active parts (how many, their names, rows, bytes on disk, newest
// modification time, data version) and its metadata's modification time. Parts are immutable:
// an insert adds a part, a merge, mutation, OPTIMIZE or TTL replaces parts with new names, and
// TRUNCATE/DROP PARTITION removes them; each of these changes the fingerprint. Engines without
// parts (views, Distributed, Merge, Memory, Buffer, Log...) get none: they are always read.
// One query per datasource for all the scan's tables; the same SQL runs on 18.16 and 26.x.
import { isQualifiedTable, quoteString } from "../sql/identifiers.js";

export interface FingerprintRow {
  database: string;
  table: string;
  engine: string;
  metadata_modified: string | number;
  parts: string | number;
  rows: string | number;
  bytes: string | number;
  modified: string | number;
  data_version: string | number;
  names: string | number;
  now: string | number;
}

export interface TableFingerprints {
  /** "database.table" -> fingerprint, for MergeTree-family tables only */
  tables: Map<string, string>;
  /** "database.table" -> engine, for every table found (the others always read) */
  engines: Map<string, string>;
  /** the server's clock (unix seconds) when it answered; null when no table was found */
  serverNow: number | null;
  /** "database.table" -> rows of its active parts and their newest modification time (freshness_anomaly's loads) */
  parts: Map<string, TableParts>;
}

/** A MergeTree table's active parts as freshness_anomaly sees them (evaluate/load-arrivals.ts). */
export interface TableParts {
  rows: number;
  /** the table's fingerprint: changes with any insert, merge, mutation or drop */
  fingerprint: string;
  /** newest modification time of an active part, unix seconds */
  modified: number;
}

/** Engines that keep their data in immutable parts listed by system.parts. */
export const hasParts = (engine: string): boolean => /MergeTree$/.test(engine);

/**
 * `(database = 'a' AND table IN ('t1', 't2')) OR ...`, one term per database: on 18.16 a list of
 * names is six times faster than an OR-chain of (database, table) equalities at 100 tables (and
 * a tuple IN is not used on system tables there; see schema-query.ts).
 */
function conditions(tables: readonly string[], databaseColumn: string, tableColumn: string): string {
  const byDatabase = new Map<string, string[]>();
  for (const qualified of [...new Set(tables)].filter(isQualifiedTable).sort()) {
    const [database, table] = qualified.split(".") as [string, string];
    byDatabase.set(database, [...(byDatabase.get(database) ?? []), table]);
  }
  if (byDatabase.size === 0) return "0";
  return [...byDatabase]
    .map(
      ([database, names]) => `(${databaseColumn} = ${quoteString(database)} AND ${tableColumn} IN (${names.map(quoteString).join(", ")}))`,
    )
    .join(" OR ");
}

/**
 * system.tables for the engine and metadata time, joined with system.parts aggregated per
 * table (a table without active parts gets zeros). groupBitXor(sipHash64(name)) stands for the
 * set of part names (names are unique within a table) in 8 bytes, so a table of thousands of
 * parts costs one row. `ANY LEFT JOIN ... USING` is the form both 18.16 and 26.x accept; the
 * aliases keep 26.x from naming a column "p.parts".
 */
export function fingerprintQuery(tables: readonly string[]): string {
  const parts =
    "SELECT database, table AS name, count() AS parts, sum(rows) AS rows, sum(bytes_on_disk) AS bytes," +
    " toUInt64(max(modification_time)) AS modified, max(data_version) AS data_version, groupBitXor(sipHash64(name)) AS names" +
    ` FROM system.parts WHERE active AND (${conditions(tables, "database", "table")}) GROUP BY database, table`;
  return (
    "SELECT t.database AS database, t.name AS table, t.engine AS engine," +
    " toUInt64(t.metadata_modification_time) AS metadata_modified, p.parts AS parts, p.rows AS rows, p.bytes AS bytes," +
    " p.modified AS modified, p.data_version AS data_version, p.names AS names, toUInt64(now()) AS now" +
    ` FROM system.tables AS t ANY LEFT JOIN (${parts}) AS p USING (database, name)` +
    ` WHERE ${conditions(tables, "t.database", "t.name")}`
  );
}

export function fingerprintsFromRows(rows: readonly FingerprintRow[]): TableFingerprints {
  const out: TableFingerprints = { tables: new Map(), engines: new Map(), serverNow: null, parts: new Map() };
  for (const row of rows) {
    const qualified = `${String(row.database)}.${String(row.table)}`;
    const engine = String(row.engine);
    out.engines.set(qualified, engine);
    const now = Number(row.now);
    if (Number.isFinite(now)) out.serverNow = now;
    if (!hasParts(engine)) continue;
    const fields = [engine, row.metadata_modified, row.parts, row.rows, row.bytes, row.modified, row.data_version, row.names];
    const fingerprint = fields.map(String).join(":");
    out.tables.set(qualified, fingerprint);
    const rows = Number(row.rows);
    const modified = Number(row.modified);
    if (Number.isFinite(rows) && Number.isFinite(modified)) out.parts.set(qualified, { rows, fingerprint, modified });
  }
  return out;
}
