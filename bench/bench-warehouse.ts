// The warehouse the benchmark runs on: the ClickHouse server at CLICKHOUSE_URL, else the
// embedded engine (chdb) in a temporary directory. Both are the service's own Warehouse
// implementations; `exec` is their non-readonly admin path, used only to create the data.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createEmbeddedWarehouse } from "../src/warehouse/chdb-engine.js";
import { createServerWarehouse, displayUrl, execServer } from "../src/warehouse/clickhouse-server.js";
import type { Warehouse } from "../src/warehouse/warehouse.js";

export interface BenchWarehouse {
  warehouse: Warehouse;
  /** e.g. "server http://127.0.0.1:8123" or "embedded (chdb)" */
  label: string;
  exec(sql: string): Promise<void>;
  /** SELECT version() */
  version(): Promise<string>;
  close(): Promise<void>;
}

export async function openBenchWarehouse(timeoutSeconds: number): Promise<BenchWarehouse> {
  const url = process.env.CLICKHOUSE_URL;
  let warehouse: Warehouse;
  let exec: (sql: string) => Promise<void>;
  let label: string;
  let cleanup = async () => {};
  if (url) {
    const conn = { url, username: process.env.CLICKHOUSE_USER || undefined, password: process.env.CLICKHOUSE_PASSWORD || undefined };
    warehouse = createServerWarehouse({ ...conn, name: "default", timeoutSeconds });
    exec = (sql) => execServer(conn, sql);
    label = `server ${displayUrl(url)}`;
  } else {
    const dir = await mkdtemp(path.join(os.tmpdir(), "mr-bench-chdb-"));
    const embedded = await createEmbeddedWarehouse({ name: "default", dataDir: dir, timeoutSeconds });
    warehouse = embedded;
    exec = (sql) => embedded.exec(sql);
    label = "embedded (chdb)";
    cleanup = () => rm(dir, { recursive: true, force: true });
  }
  return {
    warehouse,
    label,
    exec,
    async version() {
      const rows = await warehouse.query("SELECT version() AS v", { queryId: `bench-version-${Date.now()}` });
      const version = rows[0]?.v;
      return typeof version === "string" ? version : "unknown";
    },
    async close() {
      await warehouse.close();
      await cleanup();
    },
  };
}

export interface QueryCounts {
  /** every call of query() */
  total: number;
  /** the scan's system.columns read (query id "<scan>-schema-<datasource>") */
  schema: number;
  /** every call's SQL and duration (ms), in completion order */
  timings: { sql: string; ms: number }[];
}

/** The same warehouse with query() wrapped to count the calls the scan makes. */
export function countingWarehouse(inner: Warehouse): { warehouse: Warehouse; counts: QueryCounts } {
  const counts: QueryCounts = { total: 0, schema: 0, timings: [] };
  const warehouse: Warehouse = {
    name: inner.name,
    engine: inner.engine,
    async query(sql, options) {
      // The catalogue's SQL parse check (ids "<scan>-sql<n>", asked once per catalogue) reads no table.
      if (/-sql\d+$/.test(options.queryId)) return inner.query(sql, options);
      counts.total += 1;
      if (options.queryId.includes("-schema-")) counts.schema += 1;
      const started = performance.now();
      try {
        return await inner.query(sql, options);
      } finally {
        counts.timings.push({ sql, ms: performance.now() - started });
      }
    },
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
  return { warehouse, counts };
}

/** Progress on stderr, so stdout holds only the report. */
export function progress(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}
