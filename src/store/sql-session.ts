// Bulk work (a scan's write, the read model's load) runs on the database driver itself, in one
// transaction: tens of thousands of rows travel as array parameters and come back as plain rows,
// without the ORM's per-row mapping on the event loop or its query engine's memory.
// Only src/store uses this; everything else goes through the Store interface.
import type pg from "pg";
import type { ThreadedPGlite } from "./threaded-pglite.js";

export interface SqlResult<T> {
  rows: T[];
  rowCount: number;
}

/** A statement on the transaction's connection; parameters travel separately from the SQL. */
export type Sql = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<SqlResult<T>>;

export interface TransactionOptions {
  /** the whole transaction's limit; statements are cut off at it too */
  timeoutMs: number;
  /** REPEATABLE READ: one consistent snapshot across several reads */
  snapshot?: boolean;
}

export interface SqlSessions {
  transaction<T>(options: TransactionOptions, run: (sql: Sql) => Promise<T>): Promise<T>;
}

/** Rejects when `timeoutMs` passes first; the caller then rolls back. */
async function within<T>(timeoutMs: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`transaction timed out after ${timeoutMs} ms (STORE_TRANSACTION_TIMEOUT_SECONDS)`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}

export function postgresSessions(pool: pg.Pool): SqlSessions {
  return {
    async transaction(options, run) {
      const client = await pool.connect();
      let failure: Error | undefined;
      try {
        await client.query(options.snapshot ? "BEGIN ISOLATION LEVEL REPEATABLE READ" : "BEGIN");
        // The server enforces the limit too, so a statement stuck in PostgreSQL is cancelled there.
        await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(options.timeoutMs))}`);
        const sql: Sql = async <T>(text: string, params?: unknown[]) => {
          const result = await client.query(text, params);
          return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
        };
        const value = await within(options.timeoutMs, run(sql));
        await client.query("COMMIT");
        return value;
      } catch (error) {
        failure = error as Error;
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        // A failed connection is destroyed rather than pooled.
        client.release(failure);
      }
    },
  };
}

/**
 * The embedded store: a transaction the worker runs statement by statement (threaded-pglite.ts),
 * exclusive with Prisma's queries on the same single connection.
 */
export function pgliteSessions(db: ThreadedPGlite): SqlSessions {
  return {
    transaction(options, run) {
      return db.session(async (statements) => {
        await statements.exec(options.snapshot ? "BEGIN ISOLATION LEVEL REPEATABLE READ" : "BEGIN");
        // A statement stuck in WebAssembly cannot be cancelled: past the timeout `run` may go on,
        // and what it sends after the ROLLBACK would run outside the transaction. It is refused.
        let open = true;
        const sql: Sql = async <T>(text: string, params?: unknown[]) => {
          if (!open) throw new Error("the transaction is closed (it timed out or failed)");
          const result = await statements.query<T>(text, params);
          return { rows: result.rows, rowCount: result.affectedRows };
        };
        try {
          const value = await within(options.timeoutMs, run(sql));
          open = false;
          await statements.exec("COMMIT");
          return value;
        } catch (error) {
          open = false;
          await statements.exec("ROLLBACK").catch(() => undefined);
          throw error;
        }
      });
    },
  };
}
