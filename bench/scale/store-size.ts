// The store's size on disk: the tables, indexes and TOAST of a PostgreSQL database, or the
// embedded PGlite directory.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { pool } from "../../test/store/databases.js";

const run = promisify(execFile);

export interface StoreHandle {
  /** DATABASE_URL for the daemon, or undefined for the embedded store */
  url: string | undefined;
  label: string;
  bytes(): Promise<number>;
  drop(): Promise<void>;
}

export async function postgresStore(adminUrl: string, name: string): Promise<StoreHandle> {
  const admin = await pool(adminUrl);
  await admin.pool.query(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await pool(url.toString());
  return {
    url: url.toString(),
    label: `PostgreSQL ${(await db.pool.query<{ server_version: string }>("SHOW server_version")).rows[0]!.server_version}`,
    async bytes() {
      const { rows } = await db.pool.query<{ n: string }>(
        `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS n FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace`,
      );
      return Number(rows[0]!.n);
    },
    async drop() {
      await db.dispose();
      await admin.pool.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.dispose();
    },
  };
}

export function embeddedStore(dataDir: string): StoreHandle {
  return {
    url: undefined,
    label: "embedded PGlite",
    async bytes() {
      const { stdout } = await run("du", ["-sb", `${dataDir}/pglite`]);
      return Number(stdout.split(/\s/)[0]);
    },
    async drop() {},
  };
}
