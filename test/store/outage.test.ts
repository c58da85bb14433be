// A dead or vanishing database must give rejected promises with clear, credential-free messages
// (callers map them to 503) and ping false, never a crash.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { finished } from "./fixtures.js";
import { createStore } from "../../src/store/prisma-store.js";
import { StoreError } from "../../src/store/store-error.js";
import { targets } from "./databases.js";

const postgres = targets.find((t) => t.name === "postgres");

describe("store outages", () => {
  it("rejects createStore when PostgreSQL is unreachable, without echoing the password", async () => {
    const error = await createStore({ databaseUrl: "postgresql://postgres:s3cret@127.0.0.1:1/x", dataDir: "/tmp" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(/^cannot prepare the PostgreSQL store: .*ECONNREFUSED/);
    expect((error as Error).message).not.toContain("s3cret");
  });

  it("rejects createStore when the embedded data directory cannot be created", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "mr-outage-"));
    try {
      await writeFile(path.join(dir, "file"), "not a directory");
      await expect(createStore({ dataDir: path.join(dir, "file") })).rejects.toThrow(/cannot open the embedded database in .*ENOTDIR/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.runIf(postgres)("fails each call cleanly when the database goes away", async () => {
    const db = await postgres!.fresh();
    const store = await createStore(db.options);
    try {
      await store.createScan({ scan_id: "s", trigger: "manual", started_at: new Date() });
      expect(await store.ping()).toBe(true);
      await db.drop(); // terminates every connection (WITH FORCE) and removes the database
      expect(await store.ping()).toBe(false);
      await expect(store.latestStatuses()).rejects.toThrow(/^store latestStatuses failed: .+/);
      await expect(store.claimRun("t", new Date())).rejects.toBeInstanceOf(StoreError);
      await expect(store.completeScan(finished("s", [], {}, []))).rejects.toThrow(/^store completeScan failed: /);
      await expect(store.getScan("s")).rejects.toThrow(/does not exist|terminat|connect/i);
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
