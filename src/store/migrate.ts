// Applies prisma/migrations itself, because `prisma migrate deploy` needs Prisma's native schema
// engine, which is not available everywhere the daemon runs. It keeps Prisma's bookkeeping
// (`_prisma_migrations`, same checksums, same advisory lock), so the daemon and
// `prisma migrate deploy` can take turns on one database.
import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../logger.js";
import { describeError } from "./store-error.js";

/** One database session (one connection) that the migrator drives. */
export interface SqlSession {
  /** Runs SQL without parameters; may hold several statements (simple query protocol). */
  exec(sql: string): Promise<void>;
  query<T extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationReport {
  applied: string[];
  alreadyApplied: number;
}

export class MigrationError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = "MigrationError";
  }
}

/** The key `prisma migrate` locks on PostgreSQL; sharing it serialises us with Prisma's CLI too. */
export const MIGRATION_LOCK_KEY = 72707369;

// Prisma's own DDL for its bookkeeping table (PostgreSQL flavour).
const MIGRATIONS_TABLE_DDL = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** Prisma's rule: a checksum matches the script as-is or with its line endings swapped (git autocrlf). */
function checksumMatches(sql: string, checksum: string): boolean {
  const lf = sql.replace(/\r\n/g, "\n");
  return [sql, lf, lf.replace(/\n/g, "\r\n")].some((variant) => sha256(variant) === checksum);
}

/** Migration folders (`<timestamp>_<name>/migration.sql`) in Prisma's order: by folder name. */
export async function readMigrations(dir: string): Promise<MigrationFile[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    throw new MigrationError(`cannot read the migrations folder ${dir}: ${describeError(error)}`, { cause: error });
  }
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const files: MigrationFile[] = [];
  for (const name of names) {
    const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8").catch(() => null);
    if (sql !== null) files.push({ name, sql, checksum: sha256(sql) });
  }
  if (files.length === 0) throw new MigrationError(`no migrations found in ${dir}`);
  return files;
}

interface AppliedRow extends Record<string, unknown> {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
}

/**
 * Applies every migration not yet recorded, each in its own transaction, under the advisory lock.
 * Refuses to start when an applied migration was edited or a previous attempt failed half-way.
 */
export async function applyMigrations(session: SqlSession, files: MigrationFile[], logger?: Logger): Promise<MigrationReport> {
  await session.exec(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
  try {
    await session.exec(MIGRATIONS_TABLE_DDL);
    const rows = await session.query<AppliedRow>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const applied = new Map<string, AppliedRow>();
    for (const row of rows) {
      if (row.finished_at === null) {
        throw new MigrationError(
          `migration ${row.migration_name} failed earlier and is not resolved; fix the database, then run ` +
            `"prisma migrate resolve --rolled-back ${row.migration_name}" (or --applied)`,
        );
      }
      applied.set(row.migration_name, row);
    }
    for (const file of files) {
      const row = applied.get(file.name);
      if (row && !checksumMatches(file.sql, row.checksum)) {
        throw new MigrationError(
          `migration ${file.name} was modified after it was applied (checksum ${row.checksum} in the database, ` +
            `${file.checksum} on disk); restore the original file and add a new migration instead`,
        );
      }
    }
    const known = new Set(files.map((f) => f.name));
    const unknown = [...applied.keys()].filter((name) => !known.has(name));
    // A newer release may have migrated already (rolling upgrade): keep going, but say so.
    if (unknown.length > 0) logger?.warn({ migrations: unknown }, "database has migrations this version does not know");

    const report: MigrationReport = { applied: [], alreadyApplied: 0 };
    for (const file of files) {
      if (applied.has(file.name)) {
        report.alreadyApplied += 1;
        continue;
      }
      await applyOne(session, file);
      report.applied.push(file.name);
      logger?.info({ migration: file.name }, "applied database migration");
    }
    return report;
  } finally {
    await session.exec(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`).catch(() => undefined);
  }
}

async function applyOne(session: SqlSession, file: MigrationFile): Promise<void> {
  await session.exec("BEGIN");
  try {
    await session.exec(file.sql);
    await session.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), clock_timestamp(), 1)`,
      [randomUUID(), file.checksum, file.name],
    );
    await session.exec("COMMIT");
  } catch (error) {
    await session.exec("ROLLBACK").catch(() => undefined);
    throw new MigrationError(`migration ${file.name} failed and was rolled back: ${describeError(error)}`, { cause: error });
  }
}
