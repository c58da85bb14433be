// Warehouse over a ClickHouse server's HTTP interface (@clickhouse/client).
// Verified against Debian's ClickHouse 18.16: readonly and max_execution_time are sent as
// request settings (a SETTINGS clause inside the SQL is itself refused under readonly=1 there),
// and KILL QUERY is allowed under readonly=1, so cancelling needs no admin rights.
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from "@clickhouse/client";
import type { Logger } from "../logger.js";
import { prepareQuery } from "./prepare-query.js";
import type { QueryOptions, Row, Warehouse } from "./warehouse.js";
import { toWarehouseError, WarehouseError } from "./warehouse-error.js";

export interface ServerConnection {
  url: string;
  username?: string;
  password?: string;
}

export interface ServerWarehouseOptions extends ServerConnection {
  name: string;
  timeoutSeconds: number;
  /** log_queries=1 on every query: system.query_log then accounts for what each read (off by default on 18.16) */
  logQueries?: boolean;
  logger?: Pick<Logger, "debug" | "warn">;
}

// Grace over max_execution_time before the client gives up on its own: the server checks the
// limit between blocks, and 18.16's sleep() is not interruptible at all.
const CLIENT_GRACE_SECONDS = 15;

function connect(conn: ServerConnection, timeoutSeconds: number): ClickHouseClient {
  return createClient({
    url: conn.url,
    username: conn.username,
    password: conn.password,
    application: "metric-reliability",
    request_timeout: (timeoutSeconds + CLIENT_GRACE_SECONDS) * 1000,
    // The server closes an idle keep-alive socket after keep_alive_timeout (3 s before 23.11):
    // drop ours well before, and drop stale ones after an event-loop stall rather than reuse a
    // socket the server has closed ("socket hang up").
    keep_alive: { enabled: true, idle_socket_ttl: 1_000, eagerly_destroy_stale_sockets: true },
    // Errors are thrown to the caller, who logs them once; the client's own logger would
    // print every failure a second time, with its arguments.
    log: { level: ClickHouseLogLevel.OFF },
  });
}

/** The URL as it may appear in messages: never its user info. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.toString().replace(/\/$/, "");
  } catch {
    return "(invalid URL)";
  }
}

export function createServerWarehouse(options: ServerWarehouseOptions): Warehouse {
  const client = connect(options, options.timeoutSeconds);
  const secrets = [options.password ?? ""];
  const where = `ClickHouse server "${options.name}" (${displayUrl(options.url)})`;

  async function kill(queryId: string): Promise<void> {
    // The HTTP request is gone, but the server keeps running the query unless told to stop.
    try {
      await client.command({ query: `KILL QUERY WHERE query_id = '${queryId}' ASYNC`, clickhouse_settings: { readonly: "1" } });
    } catch (error) {
      options.logger?.warn({ err: error, queryId }, "could not kill the cancelled ClickHouse query");
    }
  }

  async function query(sql: string, opts: QueryOptions): Promise<Row[]> {
    const { queryId, context, statement } = prepareQuery(where, sql, opts);
    const timeout = opts.timeoutSeconds ?? options.timeoutSeconds;
    const guard = AbortSignal.timeout((timeout + CLIENT_GRACE_SECONDS) * 1000);
    const signal = opts.signal ? AbortSignal.any([opts.signal, guard]) : guard;
    const started = Date.now();
    try {
      const result = await client.query({
        query: statement,
        format: "JSONEachRow",
        query_id: queryId,
        abort_signal: signal,
        clickhouse_settings: {
          readonly: "1",
          max_execution_time: timeout,
          // 64-bit integers as strings on every server version (newer servers default to numbers).
          output_format_json_quote_64bit_integers: 1,
          ...(options.logQueries ? { log_queries: 1 } : {}),
        },
      });
      const rows = await result.json<Row>();
      options.logger?.debug({ queryId, ms: Date.now() - started, rows: rows.length }, "warehouse query");
      return rows;
    } catch (error) {
      if (signal.aborted) {
        void kill(queryId);
        const timedOut = guard.aborted && !opts.signal?.aborted;
        throw new WarehouseError(
          `${context}: ${timedOut ? `no answer within ${timeout + CLIENT_GRACE_SECONDS} s` : "cancelled"}`,
          timedOut ? "timeout" : "aborted",
          null,
          { cause: error },
        );
      }
      throw toWarehouseError(error, context, secrets);
    }
  }

  return {
    name: options.name,
    engine: "server",
    query,
    async ping() {
      try {
        await query("SELECT 1", { queryId: `ping-${Date.now()}`, timeoutSeconds: 5, signal: AbortSignal.timeout(5000) });
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await client.close();
    },
  };
}

/**
 * Admin statements (DDL, INSERT) for seeding demo/test data: NOT read-only, never used by
 * scans. Runs the statements in order on one connection.
 */
export async function execServer(conn: ServerConnection, statements: string | string[]): Promise<void> {
  const client = connect(conn, 300);
  try {
    for (const statement of Array.isArray(statements) ? statements : [statements]) {
      try {
        await client.command({ query: statement });
      } catch (error) {
        throw toWarehouseError(error, `ClickHouse server (${displayUrl(conn.url)}): statement failed`, [conn.password ?? ""]);
      }
    }
  } finally {
    await client.close();
  }
}
