// Embedded ClickHouse (the optional npm package chdb, ClickHouse 26.7 in-process).
// - chdb is imported lazily and typed locally: the production image installs without
//   optional dependencies and still type-checks and starts (with CLICKHOUSE_URL).
// - Read-only and the time limit are a trailing SETTINGS clause (chdb has no per-query
//   settings API). prepareQuery() (readQueryText) guarantees a single SELECT, so the clause cannot be
//   escaped by a second statement or an open comment.
// - chdb has no query_id option: the id is put in a leading comment (`/* query_id: ... */`),
//   which is what the query log shows. Cancelling rejects at once; the engine stops the
//   computation at max_execution_time at the latest.
// - libchdb holds ONE data directory per process: opening a second path while one is open
//   throws. close() waits for chdb to release it so another directory can be opened next.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../logger.js";
import { prepareQuery } from "./prepare-query.js";
import type { QueryOptions, Row, Warehouse } from "./warehouse.js";
import { toWarehouseError, WarehouseError } from "./warehouse-error.js";

interface ChdbResult {
  text(): string;
}
interface ChdbSession {
  queryAsync(sql: string, opts?: { format?: string; signal?: AbortSignal; timeout?: number }): Promise<ChdbResult>;
  close(): void;
}
interface ChdbModule {
  Session: new (path: string) => ChdbSession;
  drainPending?: () => Promise<void>;
}

export interface EmbeddedWarehouseOptions {
  name: string;
  /** the engine keeps its files in dataDir/clickhouse */
  dataDir: string;
  timeoutSeconds: number;
  logger?: Pick<Logger, "debug" | "warn">;
}

export interface EmbeddedWarehouse extends Warehouse {
  /** Admin statement (DDL, INSERT) for seeding: NOT read-only, never used by scans. */
  exec(sql: string): Promise<void>;
}

export const CHDB_MISSING_MESSAGE = "embedded ClickHouse needs the optional dependency chdb; set CLICKHOUSE_URL or npm install chdb";

async function loadChdb(): Promise<ChdbModule> {
  // A variable specifier keeps tsc from resolving the optional package at build time.
  const specifier = "chdb";
  try {
    return (await import(specifier)) as ChdbModule;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") throw new Error(CHDB_MISSING_MESSAGE, { cause: error });
    throw new Error(`embedded ClickHouse (chdb) failed to load: ${(error as Error).message}`, { cause: error });
  }
}

/** Rows of a JSONEachRow payload; chdb returns "" for no rows. */
export function parseJsonEachRow(text: string): Row[] {
  const rows: Row[] = [];
  for (const line of text.split("\n")) if (line.trim() !== "") rows.push(JSON.parse(line) as Row);
  return rows;
}

export async function createEmbeddedWarehouse(options: EmbeddedWarehouseOptions): Promise<EmbeddedWarehouse> {
  const chdb = await loadChdb();
  const dir = path.resolve(options.dataDir, "clickhouse");
  await mkdir(dir, { recursive: true });
  let session: ChdbSession | null;
  try {
    session = new chdb.Session(dir);
  } catch (error) {
    throw new Error(`embedded ClickHouse could not open ${dir}: ${(error as Error).message}`, { cause: error });
  }
  const where = `embedded ClickHouse "${options.name}"`;

  function open(): ChdbSession {
    if (!session) throw new WarehouseError(`${where} is closed`, "connection");
    return session;
  }

  async function query(sql: string, opts: QueryOptions): Promise<Row[]> {
    const { queryId, context, statement } = prepareQuery(where, sql, opts);
    const timeout = opts.timeoutSeconds ?? options.timeoutSeconds;
    // Newline first: the statement may end in a `--` comment.
    const text =
      `/* query_id: ${queryId} */ ${statement}\n` +
      `SETTINGS readonly = 1, max_execution_time = ${Math.max(1, Math.floor(timeout))}, output_format_json_quote_64bit_integers = 1`;
    const started = Date.now();
    try {
      const result = await open().queryAsync(text, { format: "JSONEachRow", signal: opts.signal, timeout: (timeout + 15) * 1000 });
      const rows = parseJsonEachRow(result.text());
      options.logger?.debug({ queryId, ms: Date.now() - started, rows: rows.length }, "warehouse query");
      return rows;
    } catch (error) {
      if (opts.signal?.aborted) throw new WarehouseError(`${context}: cancelled`, "aborted", null, { cause: error });
      throw toWarehouseError(error, context);
    }
  }

  return {
    name: options.name,
    engine: "embedded",
    query,
    async exec(sql: string) {
      try {
        await open().queryAsync(sql);
      } catch (error) {
        throw toWarehouseError(error, `${where}: statement failed`);
      }
    },
    async ping() {
      try {
        await query("SELECT 1", { queryId: `ping-${Date.now()}`, timeoutSeconds: 5 });
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      const current = session;
      session = null;
      if (!current) return;
      current.close();
      // Until pending native work drains, chdb refuses to open another data directory.
      await chdb.drainPending?.();
    },
  };
}
