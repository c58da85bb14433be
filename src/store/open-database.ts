// Opens the store's database: PostgreSQL through @prisma/adapter-pg, or PGlite persisted in the
// data directory. Migrations run first, on a dedicated session, before Prisma sees the schema.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import v8 from "node:v8";
import type { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient } from "../generated/prisma/client.js";
import type { Logger } from "../logger.js";
import { applyMigrations, readMigrations, type MigrationReport, type SqlSession } from "./migrate.js";
import { defaultMigrationsDir } from "./package-root.js";
import { openThreadedPGlite } from "./open-pglite.js";
import { pgliteSessions, postgresSessions, type SqlSessions } from "./sql-session.js";
import { describeError, StoreError } from "./store-error.js";
import type { ThreadedPGlite } from "./threaded-pglite.js";

export interface OpenOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  logger?: Logger | undefined;
  /** defaults to prisma/migrations of this package */
  migrationsDir?: string | undefined;
}

export interface Database {
  prisma: PrismaClient;
  /** the driver's own transactions, for set-based bulk statements */
  sessions: SqlSessions;
  kind: "postgres" | "pglite";
  migrations: MigrationReport;
  close(): Promise<void>;
}

/** Without it pg waits forever for an unreachable server; startup and requests must fail instead. */
const CONNECT_TIMEOUT_MS = 10_000;
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 60_000 };

export async function openDatabase(options: OpenOptions): Promise<Database> {
  const files = await readMigrations(options.migrationsDir ?? defaultMigrationsDir());
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, files, options.logger)
    : openPglite(options.dataDir, files, options.logger);
}

/**
 * Prisma 7 plans each query in a WebAssembly module (about 3 MB, compiled at the first query).
 * V8 first compiles it with its baseline compiler, then recompiles the busy functions with its
 * optimising one in the background: that second compile raised the resident set by 40 to 50 MB
 * for good (the idle daemon on the demo catalogue 185 -> 143 MB; a process that only opens the
 * store and queries it, peak 151 -> 100 MB) and made 500 queries no faster (docs/benchmarks.md).
 * The flag is process-wide and read when a module is compiled, so it is set before the client's
 * first query. Not for PGlite: its engine is the database itself, compute-bound, in a worker of
 * this process.
 */
function keepPrismaWasmBaseline(): void {
  v8.setFlagsFromString("--liftoff-only");
}

async function openPostgres(url: string, files: Awaited<ReturnType<typeof readMigrations>>, logger?: Logger): Promise<Database> {
  keepPrismaWasmBaseline();
  const poolConfig = { connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: "metric-reliability" };
  // pg emits 'error' on idle or checked-out clients when the server goes away; unhandled, that
  // would crash the process. The adapter forwards both to these callbacks.
  const adapterOptions = {
    onPoolError: (error: Error) => logger?.warn({ err: describeError(error) }, "store connection pool error"),
    onConnectionError: (error: Error) => logger?.warn({ err: describeError(error) }, "store connection error"),
  };
  const migrations = await migratePostgres(new PrismaPg(poolConfig, adapterOptions), files, logger);
  // One pool for Prisma and for the bulk sessions, so the connection limit is shared.
  const pool = new pg.Pool(poolConfig);
  pool.on("error", adapterOptions.onPoolError);
  const prisma = new PrismaClient({
    adapter: new PrismaPg(pool, adapterOptions),
    errorFormat: "minimal",
    transactionOptions: TRANSACTION_OPTIONS,
  });
  const close = async () => {
    await prisma.$disconnect();
    await pool.end().catch(() => undefined);
  };
  return { prisma, sessions: postgresSessions(pool), kind: "postgres", migrations, close };
}

/** Migrates on one connection of a short-lived pool, so the session advisory lock is really held. */
async function migratePostgres(factory: PrismaPg, files: Awaited<ReturnType<typeof readMigrations>>, logger?: Logger) {
  const adapter = await factory.connect();
  try {
    const client = await adapter.underlyingDriver().connect();
    const onError = (error: Error) => logger?.warn({ err: describeError(error) }, "store migration connection error");
    client.on("error", onError);
    let failure: Error | undefined;
    try {
      const session: SqlSession = {
        exec: async (sql) => void (await client.query(sql)),
        query: async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) =>
          (await client.query(sql, params)).rows as T[],
      };
      return await applyMigrations(session, files, logger);
    } catch (error) {
      failure = error as Error;
      throw error;
    } finally {
      client.removeListener("error", onError);
      // A failed session is destroyed rather than pooled; that also drops any lock it held.
      client.release(failure);
    }
  } catch (error) {
    throw storeOpenError("PostgreSQL", error);
  } finally {
    await adapter.dispose().catch(() => undefined);
  }
}

async function openPglite(dataDir: string, files: Awaited<ReturnType<typeof readMigrations>>, logger?: Logger): Promise<Database> {
  const dir = path.resolve(dataDir, "pglite");
  let db: ThreadedPGlite;
  try {
    // PGlite does not create parent folders (an empty folder is where initdb's result goes).
    await mkdir(dir, { recursive: true });
    // PostgreSQL runs in a worker thread: a long statement does not hold the event loop.
    db = await openThreadedPGlite(dir);
  } catch (error) {
    throw new StoreError(`cannot open the embedded database in ${dir}: ${describeError(error)}`, { cause: error });
  }
  let migrations: MigrationReport;
  try {
    // One connection only; exec runs multi-statement SQL.
    migrations = await db.session((statements) =>
      applyMigrations(
        {
          exec: (sql) => statements.exec(sql),
          query: async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) =>
            (await statements.query<T>(sql, params)).rows,
        },
        files,
        logger,
      ),
    );
  } catch (error) {
    await db.close().catch(() => undefined);
    throw storeOpenError("embedded PGlite", error);
  }
  // The adapter needs only PGlite's query/exec/transaction, which the threaded client has (same base class).
  const adapter = new PrismaPGlite(db as unknown as PGlite);
  const prisma = new PrismaClient({ adapter, errorFormat: "minimal", transactionOptions: TRANSACTION_OPTIONS });
  const close = async () => {
    await prisma.$disconnect();
    // A clean shutdown of the worker's PostgreSQL: nothing to recover at the next start.
    await db.close();
  };
  return { prisma, sessions: pgliteSessions(db), kind: "pglite", migrations, close };
}

function storeOpenError(what: string, error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  return new StoreError(`cannot prepare the ${what} store: ${describeError(error)}`, { cause: error });
}
