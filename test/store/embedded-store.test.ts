// The embedded store (PGlite) at real size: PostgreSQL runs in a worker thread, its database is
// created by initdb in a process of its own, and neither a kill nor a close damages the data.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/open-database.js";
import { createStore } from "../../src/store/prisma-store.js";
import { seedEmbeddedStore } from "../helpers/pglite-template.js";

const WRITER = path.join(path.dirname(fileURLToPath(import.meta.url)), "embedded-writer.ts");
const temps: string[] = [];
afterEach(async () => {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true });
});
const tempDir = async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mr-embedded-"));
  temps.push(dir);
  return dir;
};
/** A folder with a new database in it: the tests after the first two are not about initdb. */
const seededDir = async () => {
  const dir = await tempDir();
  await seedEmbeddedStore(dir);
  return dir;
};

/** Runs embedded-writer.ts; resolves with its output once `until` appears (then kills it) or it exits. */
function runWriter(
  dataDir: string,
  mode: "close" | "kill",
  until?: string,
): Promise<{ code: number | null; signal: string | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--max-old-space-size=256", "--import", "tsx", WRITER, dataDir, mode], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      // Killed in the middle of the transaction: the statement is already running in the worker.
      if (until && stdout.includes(until)) setTimeout(() => child.kill("SIGKILL"), 300);
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve({ code, signal, stdout }));
  });
}

describe("the embedded store", () => {
  it("creates its database in a scratch folder renamed into place, clearing an interrupted attempt", async () => {
    const dataDir = await tempDir();
    await mkdir(path.join(dataDir, "pglite.initdb-99999-deadbeef"));
    await writeFile(path.join(dataDir, "pglite.initdb-99999-deadbeef", "PG_VERSION"), "half");
    const store = await createStore({ dataDir });
    await store.close();
    expect(existsSync(path.join(dataDir, "pglite", "PG_VERSION"))).toBe(true);
    expect((await readdir(dataDir)).sort()).toEqual(["pglite"]);
  });

  it("refuses a folder that holds something else than a database", async () => {
    const dataDir = await tempDir();
    await mkdir(path.join(dataDir, "pglite"));
    await writeFile(path.join(dataDir, "pglite", "notes.txt"), "mine");
    await expect(createStore({ dataDir })).rejects.toThrow(/pglite is not empty but holds no database/);
    expect(await readdir(path.join(dataDir, "pglite"))).toEqual(["notes.txt"]);
  });

  it("runs statements off the event loop, for Prisma and for the bulk sessions alike", async () => {
    const database = await openDatabase({ dataDir: await seededDir() });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    try {
      // In the daemon's thread, PGlite would hold the event loop for the whole second: no tick.
      await database.prisma.$queryRawUnsafe("SELECT 1 AS one FROM pg_sleep(1)");
      expect(ticks).toBeGreaterThan(10);
      ticks = 0;
      await database.sessions.transaction({ timeoutMs: 60_000 }, (sql) => sql("SELECT pg_sleep(1)"));
      expect(ticks).toBeGreaterThan(10);
    } finally {
      clearInterval(timer);
      await database.close();
    }
  });

  it("keeps PostgreSQL's errors for Prisma (a unique violation is P2002) and for the sessions", async () => {
    const database = await openDatabase({ dataDir: await seededDir() });
    try {
      const row = { id: "s", trigger: "manual", status: "running", startedAt: new Date() };
      await database.prisma.scan.create({ data: row });
      await expect(database.prisma.scan.create({ data: row })).rejects.toMatchObject({ code: "P2002" });
      await expect(database.sessions.transaction({ timeoutMs: 60_000 }, (sql) => sql("SELECT 1/0"))).rejects.toThrow(/division by zero/);
      // the failed transaction was rolled back: the connection is usable
      expect(await database.prisma.scan.count()).toBe(1);
    } finally {
      await database.close();
    }
  });

  it("rolls a timed-out transaction back, and refuses what its code still sends afterwards", async () => {
    const database = await openDatabase({ dataDir: await seededDir() });
    try {
      let late: Promise<unknown> | undefined;
      const insert = `INSERT INTO "run_claims" ("name", "fire_time") VALUES ('t', now())`;
      await expect(
        database.sessions.transaction({ timeoutMs: 200 }, async (sql) => {
          await sql(insert.replace("'t'", "'before'"));
          await sql("SELECT pg_sleep(1)");
          late = sql(insert);
          await late;
        }),
      ).rejects.toThrow(/timed out after 200 ms/);
      // the statement sent after the timeout was refused, not run outside the transaction
      await expect(
        (async () => {
          while (!late) await new Promise((resolve) => setTimeout(resolve, 50));
          return late;
        })(),
      ).rejects.toThrow(/transaction is closed/);
      expect(await database.prisma.runClaim.count()).toBe(0);
    } finally {
      await database.close();
    }
  });

  it("closes cleanly: the worker exits and the process ends on its own", async () => {
    const dataDir = await seededDir();
    const run = await runWriter(dataDir, "close");
    expect(run).toEqual({ code: 0, signal: null, stdout: "closed\n" });
    const store = await createStore({ dataDir });
    try {
      expect(await store.getScan("committed")).toMatchObject({ status: "succeeded" });
    } finally {
      await store.close();
    }
  });

  it("survives a kill in the middle of a write: every committed scan is there, the half-written one is not", async () => {
    const dataDir = await seededDir();
    const run = await runWriter(dataDir, "kill", "writing");
    expect(run.signal).toBe("SIGKILL");
    expect(run.stdout).not.toContain("written");
    const store = await createStore({ dataDir });
    try {
      expect(await store.getScan("committed")).toMatchObject({ status: "succeeded", catalog_version: "v1" });
      expect(await store.getScan("inflight")).toMatchObject({ status: "running", finished_at: null });
      const state = await store.readState({ historyLimit: 5 });
      expect(state.statuses.map((s) => [s.metric_name, s.status])).toEqual([["m", "unreliable"]]);
      expect([...state.observations.keys()]).toEqual(["k"]);
    } finally {
      await store.close();
    }
  });
});
