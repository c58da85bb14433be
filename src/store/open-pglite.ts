// Opens the embedded store's database: created on first use by initdb in a process of its own,
// then run by PGlite in a worker thread (threaded-pglite.ts, pglite-thread.ts).
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, rename, rm, rmdir } from "node:fs/promises";
import path from "node:path";
import { runProcess, startThread } from "./entry-point.js";
import type { ThreadSettings } from "./pglite-thread-messages.js";
import { ThreadedPGlite } from "./threaded-pglite.js";

/**
 * PostgreSQL's memory in the worker: WebAssembly memory only grows, so every buffer PostgreSQL
 * touches stays resident for the life of the process. PGlite's default 128 MB of shared buffers
 * would all be touched within a few scans at 10,000 metrics; 16 MB keep the hot pages, and the
 * rest is in the operating system's page cache, a read away.
 */
export const EMBEDDED_START_PARAMS = ["-c", "shared_buffers=16MB"];
const INITDB_TIMEOUT_MS = 300_000;

/** The database in `dir`, created first if the folder holds none. */
export async function openThreadedPGlite(dir: string): Promise<ThreadedPGlite> {
  await initdbIfMissing(dir);
  const settings: ThreadSettings = { dataDir: dir, startParams: EMBEDDED_START_PARAMS };
  const db = new ThreadedPGlite(startThread("pglite-thread", { workerData: settings }));
  try {
    await db.ready;
    // PGlite.create does this too: serialisers and parsers for every array type.
    await db._initArrayTypes();
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

/**
 * initdb runs PostgreSQL twice over plus the initdb program (about 700 MB resident for a few
 * seconds): in a process of its own, that peak is not the daemon's. It writes into a scratch
 * folder next to `dir`, renamed into place when complete, so an interrupted first start leaves
 * no half-made database behind.
 */
export async function initdbIfMissing(dir: string): Promise<void> {
  if (existsSync(path.join(dir, "PG_VERSION"))) return;
  const parent = path.dirname(dir);
  const prefix = `${path.basename(dir)}.initdb-`;
  await mkdir(parent, { recursive: true });
  for (const name of await readdir(parent)) {
    if (name.startsWith(prefix)) await rm(path.join(parent, name), { recursive: true, force: true });
  }
  const scratch = path.join(parent, `${prefix}${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    await runProcess("pglite-initdb", [scratch], INITDB_TIMEOUT_MS);
    await rmdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return;
      if (error.code === "ENOTEMPTY" || error.code === "EEXIST") {
        throw new Error(`${dir} is not empty but holds no database (no PG_VERSION): move it away or choose another DATA_DIR`);
      }
      throw error;
    });
    await rename(scratch, dir);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
