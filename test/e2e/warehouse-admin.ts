// DDL and inserts beside a running daemon, into the warehouse it scans: the ClickHouse server at
// CLICKHOUSE_URL, or the daemon's own chdb data directory (chdb allows several sessions on the
// one data directory of the process). For suites that load tables of their own.
import { rm } from "node:fs/promises";
import { createEmbeddedWarehouse } from "../../src/warehouse/chdb-engine.js";
import { execServer } from "../../src/warehouse/clickhouse-server.js";
import { serverConnection } from "../helpers/warehouses.js";
import type { Backend, Combination } from "./daemon-harness.js";

export interface WarehouseAdmin {
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

/** Open it after the daemon started (embedded: the daemon opens chdb's data directory first). */
export async function warehouseAdmin(combination: Combination, backend: Backend): Promise<WarehouseAdmin> {
  if (combination.name === "server") {
    const conn = serverConnection()!;
    return { exec: (sql) => execServer(conn, sql), close: async () => {} };
  }
  const engine = await createEmbeddedWarehouse({ name: "default", dataDir: backend.dataDir, timeoutSeconds: 120 });
  return { exec: (sql) => engine.exec(sql), close: () => engine.close() };
}

/** INSERT ... SELECT over literal tuples, in statements small enough for any max_query_size. */
export function tupleInserts(table: string, columns: string, rows: readonly string[], perStatement = 1000): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length; i += perStatement) {
    out.push(`INSERT INTO ${table} SELECT ${columns} FROM (SELECT arrayJoin([${rows.slice(i, i + perStatement).join(",")}]) AS x)`);
  }
  return out;
}

/** What a suite that loads its own tables beside a daemon started. */
export interface LoadedSuite {
  combination: Combination;
  backend: Backend | undefined;
  daemon: { stop(): Promise<void> } | undefined;
  db: string;
  dir: string | undefined;
}

/** Its afterAll: the suite's database dropped (while the daemon's warehouse still answers), then the daemon, backend and folder. */
export async function tearDownLoaded(suite: LoadedSuite): Promise<void> {
  if (suite.backend && suite.daemon) {
    const admin = await warehouseAdmin(suite.combination, suite.backend).catch(() => null);
    await admin?.exec(`DROP DATABASE IF EXISTS ${suite.db}`).catch(() => undefined);
    await admin?.close();
  }
  await suite.daemon?.stop();
  await suite.backend?.dispose();
  if (suite.dir) await rm(suite.dir, { recursive: true, force: true });
}
