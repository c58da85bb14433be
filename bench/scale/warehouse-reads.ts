// What the warehouse read for one scan, from ClickHouse's own accounting: system.query_log rows
// of the scan's queries (query ids `<scan_id>-...`), which the daemon logs with
// CLICKHOUSE_LOG_QUERIES=true (log_queries=1; 18.16 sends no X-ClickHouse-Summary header).
import { setTimeout as sleep } from "node:timers/promises";
import { tablesInSql } from "../../src/plan/sql-tables.js";
import { quoteIdentifier } from "../../src/sql/identifiers.js";
import { createServerWarehouse, execServer, type ServerConnection } from "../../src/warehouse/clickhouse-server.js";
import { tableName } from "../wide-mode.js";

export interface ScanReads {
  /** read_bytes summed over every finished query of the scan */
  bytes: number;
  rows: number;
  queries: number;
  /** per table query (`SELECT count() AS total ...`): the tables of `db` its text reads */
  tableQueries: string[][];
}

export async function scanReads(conn: ServerConnection, scanId: string, db: string): Promise<ScanReads> {
  if (!/^[A-Za-z0-9_-]+$/.test(scanId)) throw new Error(`unexpected scan id ${scanId}`);
  const warehouse = createServerWarehouse({ ...conn, name: "bench", timeoutSeconds: 60 });
  try {
    // A query's log entry can land just after its answer: read until two reads agree.
    let rows: Record<string, unknown>[] = [];
    for (let attempt = 0; attempt < 20; attempt++) {
      await execServer(conn, "SYSTEM FLUSH LOGS");
      const next = await warehouse.query(
        `SELECT query, toString(read_bytes) AS read_bytes, toString(read_rows) AS read_rows FROM system.query_log
          WHERE event_date >= yesterday() AND type = 2 AND query_id LIKE '${scanId}-%'`,
        { queryId: `bench-reads-${Date.now()}` },
      );
      if (next.length > 0 && next.length === rows.length) break;
      rows = next;
      await sleep(500);
    }
    const prefix = `${db}.`;
    return {
      bytes: rows.reduce((sum, r) => sum + Number(r.read_bytes), 0),
      rows: rows.reduce((sum, r) => sum + Number(r.read_rows), 0),
      queries: rows.length,
      tableQueries: rows
        .map((r) => String(r.query))
        .filter((query) => query.startsWith("SELECT count() AS total"))
        .map((query) =>
          tablesInSql(query)
            .tables.filter((t) => t.startsWith(prefix))
            .map((t) => t.slice(prefix.length)),
        ),
    };
  } finally {
    await warehouse.close();
  }
}

/** Every `every`-th table of the scale dataset: the tables rows are appended to. */
export function appendedTables(tables: number, count: number): string[] {
  const every = Math.max(1, Math.floor(tables / count));
  return Array.from({ length: Math.min(count, tables) }, (_, k) => tableName(k * every));
}

/** `rows` new rows on each table, with the dataset's defects (NULL amounts, orphan parents, negative prices). */
export function appendStatements(db: string, tables: readonly string[], start: number, rows: number): string[] {
  return tables.map(
    (table) => `INSERT INTO ${quoteIdentifier(db)}.${quoteIdentifier(table)}
      SELECT number + ${start + 1}, if(number % 7 = 0, ${start * 10}, number % ${start} + 1), ['a', 'b', 'c'][number % 3 + 1],
        concat('l', toString(number % 50)), if(number % 5 = 0, CAST(NULL AS Nullable(Float64)), CAST(toFloat64(number) AS Nullable(Float64))),
        toUInt32(number % 5), if(number % 11 = 0, -1, 1) * toFloat64(number % 300), toFloat32(number % 97), now() - number
      FROM numbers(${rows})`,
  );
}
