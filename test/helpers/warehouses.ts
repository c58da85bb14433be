// The ClickHouse engines every warehouse-facing suite runs on: the embedded engine (chdb)
// always, and a ClickHouse server when CLICKHOUSE_URL is set (CI: Debian's 18.16).
// Usage: describe.each(engineCases)("$name", (engine) => { ... await engine.open() ... })
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createEmbeddedWarehouse, type EmbeddedWarehouse } from "../../src/warehouse/chdb-engine.js";
import { createServerWarehouse, execServer } from "../../src/warehouse/clickhouse-server.js";
import { seedDemoDataset } from "../../src/warehouse/demo-dataset.js";
import type { Warehouse } from "../../src/warehouse/warehouse.js";

export interface WarehouseHandle {
  warehouse: Warehouse;
  /** admin statement (DDL/INSERT), not read-only */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

export interface EngineCase {
  name: "embedded" | "server";
  open(options?: { timeoutSeconds?: number; name?: string }): Promise<WarehouseHandle>;
}

// libchdb holds one data directory per process, so every embedded handle of a test file shares
// one engine in one temp directory; it is closed (and the directory removed) with the last handle.
let shared: { engine: Promise<EmbeddedWarehouse>; dir: Promise<string>; users: number } | null = null;

async function openEmbedded(timeoutSeconds: number, name: string): Promise<WarehouseHandle> {
  if (!shared) {
    const dir = mkdtemp(path.join(os.tmpdir(), "mr-chdb-test-"));
    shared = { dir, users: 0, engine: dir.then((d) => createEmbeddedWarehouse({ name: "default", dataDir: d, timeoutSeconds: 30 })) };
  }
  const current = shared;
  current.users += 1;
  const engine = await current.engine;
  let closed = false;
  return {
    // A view with this handle's name and default timeout over the shared engine.
    warehouse: {
      name,
      engine: "embedded",
      query: (sql, options) => engine.query(sql, { ...options, timeoutSeconds: options.timeoutSeconds ?? timeoutSeconds }),
      ping: () => engine.ping(),
      close: async () => {},
    },
    exec: (sql) => engine.exec(sql),
    async close() {
      if (closed) return;
      closed = true;
      current.users -= 1;
      if (current.users > 0) return;
      if (shared === current) shared = null;
      await engine.close();
      await rm(await current.dir, { recursive: true, force: true });
    },
  };
}

export function serverConnection(): { url: string; username?: string; password?: string } | null {
  const url = process.env.CLICKHOUSE_URL;
  if (!url) return null;
  return { url, username: process.env.CLICKHOUSE_USER || undefined, password: process.env.CLICKHOUSE_PASSWORD || undefined };
}

async function openServer(timeoutSeconds: number, name: string): Promise<WarehouseHandle> {
  const conn = serverConnection();
  if (!conn) throw new Error("CLICKHOUSE_URL is not set");
  const warehouse = createServerWarehouse({ ...conn, name, timeoutSeconds });
  return { warehouse, exec: (sql) => execServer(conn, sql), close: () => warehouse.close() };
}

export const engines: EngineCase[] = [
  { name: "embedded", open: (o = {}) => openEmbedded(o.timeoutSeconds ?? 30, o.name ?? "default") },
  ...(serverConnection()
    ? [
        {
          name: "server" as const,
          open: (o: { timeoutSeconds?: number; name?: string } = {}) => openServer(o.timeoutSeconds ?? 30, o.name ?? "default"),
        },
      ]
    : []),
];

/**
 * The engines a suite runs on (describe.each). MR_SERVER_ENGINES_ONLY=1 with CLICKHOUSE_URL set
 * leaves the embedded engine out: .ci/run's first pass sets it, and its newcomer pass (no server
 * variables) runs the same suites on chdb, so each case still runs once on each engine.
 */
export const engineCases: EngineCase[] =
  process.env.MR_SERVER_ENGINES_ONLY === "1" && serverConnection() ? engines.filter((e) => e.name === "server") : engines;

/** A database name no other suite (or concurrent run) uses on a shared server. */
export function uniqueDatabase(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}`;
}

/** Seeds the demo shop into `database` (default: a unique name); returns the name. */
export async function seedDemo(handle: WarehouseHandle, database: string = uniqueDatabase("mr_demo")): Promise<string> {
  await seedDemoDataset((sql) => handle.exec(sql), database);
  return database;
}
