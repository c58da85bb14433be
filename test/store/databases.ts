// Fresh, empty databases for the store tests: PGlite always, real PostgreSQL when DATABASE_URL is
// set. DATABASE_URL is only the admin connection: every fresh() creates its own database on that
// server (and drops it afterwards), so runs never see each other's data.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import type { CreateStoreOptions } from "../../src/store/prisma-store.js";
import { seedEmbeddedStore } from "../helpers/pglite-template.js";

export interface TestDatabase {
  /** options for createStore; reopening with the same options reopens the same database */
  options: CreateStoreOptions;
  /** Inspects the database directly. For PGlite the store must be closed first (one process per data dir). */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

export interface TestTarget {
  name: "postgres" | "pglite";
  fresh(): Promise<TestDatabase>;
}

const adminUrl = process.env.DATABASE_URL;

export const targets: TestTarget[] = [pgliteTarget(), ...(adminUrl ? [postgresTarget(adminUrl)] : [])];
/**
 * The stores a suite runs on (describe.each). MR_SERVER_ENGINES_ONLY=1 with DATABASE_URL set leaves
 * PGlite out: .ci/run's first pass sets it, and its newcomer pass (no server variables) runs the
 * same suites on PGlite, so each case still runs once on each store and CI stays under 30 minutes.
 */
export const storeTargets: TestTarget[] =
  process.env.MR_SERVER_ENGINES_ONLY === "1" && adminUrl ? targets.filter((t) => t.name === "postgres") : targets;

function pgliteTarget(): TestTarget {
  return {
    name: "pglite",
    async fresh() {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), "mr-store-test-"));
      // initdb takes seconds: every database starts as a copy of the run's one (pglite-template.ts).
      await seedEmbeddedStore(dataDir);
      return {
        options: { dataDir },
        async query<T>(sql: string, params: unknown[] = []) {
          const inspect = await PGlite.create(path.join(dataDir, "pglite"));
          try {
            return (await inspect.query<T>(sql, params)).rows;
          } finally {
            await inspect.close();
          }
        },
        drop: () => rm(dataDir, { recursive: true, force: true }),
      };
    },
  };
}

/** A pg Pool through the Prisma adapter we already depend on (pg itself is not a direct dependency). */
export async function pool(url: string) {
  const adapter = await new PrismaPg({ connectionString: url }).connect();
  return { pool: adapter.underlyingDriver(), dispose: () => adapter.dispose() };
}

function postgresTarget(admin: string): TestTarget {
  return {
    name: "postgres",
    async fresh() {
      const name = `mr_store_${process.pid}_${randomBytes(4).toString("hex")}`;
      const adminPool = await pool(admin);
      await adminPool.pool.query(`CREATE DATABASE "${name}"`);
      const url = new URL(admin);
      url.pathname = `/${name}`;
      const dbPool = await pool(url.toString());
      return {
        options: { databaseUrl: url.toString(), dataDir: os.tmpdir() },
        async query<T>(sql: string, params: unknown[] = []) {
          return (await dbPool.pool.query(sql, params)).rows as T[];
        },
        drop: once(async () => {
          await dbPool.dispose();
          await adminPool.pool.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
          await adminPool.dispose();
        }),
      };
    },
  };
}

function once(run: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | null = null;
  return () => (done ??= run());
}
