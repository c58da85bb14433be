// The Store contract, run against every target in databases.ts (PGlite, and PostgreSQL when
// DATABASE_URL is set).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ABORTED_ERROR, createStore } from "../../src/store/prisma-store.js";
import type { Store } from "../../src/store/store.js";
import { targets, type TestDatabase } from "./databases.js";
import { at, result, status } from "./fixtures.js";

describe.each(targets)("store on $name", (target) => {
  let db: TestDatabase;
  let store: Store;

  beforeEach(async () => {
    db = await target.fresh();
    store = await createStore(db.options);
  });
  afterEach(async () => {
    await store.close();
    await db.drop();
  });

  /** Creates and completes a scan. */
  async function scan(id: string, minute: number, results: ReturnType<typeof result>[], statuses: ReturnType<typeof status>[]) {
    await store.createScan({ scan_id: id, trigger: "manual", started_at: at(minute - 1) });
    return store.completeScan({ scan_id: id, finished_at: at(minute), results, statuses });
  }

  it("creates, completes and reads back a scan", async () => {
    const created = await store.createScan({ scan_id: "s1", trigger: "schedule", started_at: at(0) });
    expect(created).toEqual({ scan_id: "s1", trigger: "schedule", status: "running", started_at: at(0), finished_at: null, error: null, summary: null });
    expect(await store.getRunningScan()).toEqual(created);

    const big = 5_000_000_000; // beyond INT4: the columns are BIGINT and come back as numbers
    const results = [
      result("orders", "not_null", "failing", { rows_affected: big, rows_total: big * 2 }),
      result("orders", "fresh", "warning"),
      result("aov", "unique"),
    ];
    const done = await store.completeScan({ scan_id: "s1", finished_at: at(1), results, statuses: [status("orders", "unreliable"), status("aov", "healthy")] });
    expect(done).toMatchObject({ status: "succeeded", finished_at: at(1), error: null, summary: { total: 3, passing: 1, failing: 1, warning: 1 } });
    expect(await store.getScan("s1")).toEqual(done);
    expect(await store.getScan("nope")).toBeNull();
    expect(await store.getRunningScan()).toBeNull();

    const latest = await store.latestResults();
    expect(latest?.scan).toEqual(done);
    // stable order: metric, rule, name
    expect(latest?.results.map((r) => `${r.metric}/${r.rule}`)).toEqual(["aov/unique", "orders/fresh", "orders/not_null"]);
    expect(latest?.results[2]).toEqual(results[0]);
    expect(typeof latest?.results[2]?.rows_affected).toBe("number");

    expect(await store.latestStatuses()).toEqual([
      { ...status("aov", "healthy"), checked_at: at(1), since: at(1), scan_id: "s1" },
      { ...status("orders", "unreliable"), checked_at: at(1), since: at(1), scan_id: "s1" },
    ]);
    expect(await store.latestStatus("orders")).toMatchObject({ status: "unreliable", safe_to_use: false });
    expect(await store.latestStatus("nope")).toBeNull();
    expect(await store.latestResultsFor("aov")).toEqual([results[2]]);
    expect(await store.latestResultsFor("nope")).toEqual([]);
  });

  it("records failed scans without touching results or statuses", async () => {
    await store.createScan({ scan_id: "f1", trigger: "manual", started_at: at(0) });
    const failed = await store.failScan("f1", at(2), "warehouse unavailable");
    expect(failed).toMatchObject({ status: "failed", finished_at: at(2), error: "warehouse unavailable", summary: null });
    expect(await store.latestResults()).toBeNull();
    expect(await store.latestStatuses()).toEqual([]);
    await expect(store.failScan("missing", at(3), "x")).rejects.toThrow(/scan missing not found/);
    await expect(store.completeScan({ scan_id: "f1", finished_at: at(4), results: [], statuses: [] })).rejects.toThrow(/already failed/);
  });

  it("keeps `since` while a status holds and records each change", async () => {
    await scan("a", 10, [result("m", "r")], [status("m", "healthy"), status("other", "degraded")]);
    await scan("b", 20, [result("m", "r")], [status("m", "healthy")]);
    expect(await store.latestStatus("m")).toMatchObject({ status: "healthy", since: at(10), checked_at: at(20), scan_id: "b" });

    await scan("c", 30, [result("m", "r", "failing")], [status("m", "unreliable")]);
    await scan("d", 40, [result("m", "r")], [status("m", "healthy")]);
    expect(await store.latestStatus("m")).toMatchObject({ status: "healthy", since: at(40), checked_at: at(40) });
    expect(await store.statusHistory("m", 10)).toEqual([
      { status: "healthy", from: at(40), to: null },
      { status: "unreliable", from: at(30), to: at(40) },
      { status: "healthy", from: at(10), to: at(30) },
    ]);
    expect(await store.statusHistory("m", 2)).toHaveLength(2);
    expect(await store.statusHistory("m", 0)).toEqual([]);
    // a metric absent from later scans is left alone
    expect(await store.latestStatus("other")).toMatchObject({ status: "degraded", since: at(10), checked_at: at(10), scan_id: "a" });
    expect(await store.statusHistory("other", 10)).toEqual([{ status: "degraded", from: at(10), to: null }]);

    // a scan that finished before the stored status was checked does not roll it back
    await scan("late", 35, [result("m", "r", "failing")], [status("m", "unreliable")]);
    expect(await store.latestStatus("m")).toMatchObject({ status: "healthy", since: at(40) });
  });

  it("finds each metric's newest results, even in an older scan", async () => {
    await scan("a", 10, [result("m1", "r"), result("m2", "r", "failing")], [status("m1", "healthy"), status("m2", "unreliable")]);
    await scan("b", 20, [result("m1", "r", "warning")], [status("m1", "degraded")]);
    expect((await store.latestResultsFor("m1")).map((r) => r.status)).toEqual(["warning"]);
    expect((await store.latestResultsFor("m2")).map((r) => r.status)).toEqual(["failing"]);
    expect((await store.latestResults())?.scan.scan_id).toBe("b");
  });

  it("keeps everything across a restart and applies no migration twice", async () => {
    await scan("a", 10, [result("m", "r")], [status("m", "healthy")]);
    const before = await store.latestResults();
    await store.close();
    store = await createStore(db.options);
    expect(await store.latestResults()).toEqual(before);
    expect(await store.latestStatus("m")).toMatchObject({ status: "healthy", since: at(10) });
    await store.close();
    const rows = await db.query<{ n: number; names: number }>(`SELECT count(*)::int AS n, count(DISTINCT migration_name)::int AS names FROM "_prisma_migrations"`);
    expect(rows[0]?.n).toBeGreaterThan(0);
    expect(rows[0]?.n).toBe(rows[0]?.names);
    store = await createStore(db.options);
  });

  it("marks scans left running by a dead process as aborted, but not one whose heartbeat is fresh", async () => {
    await store.createScan({ scan_id: "r1", trigger: "startup", started_at: at(0) });
    await store.createScan({ scan_id: "r2", trigger: "schedule", started_at: at(1) });
    await store.createScan({ scan_id: "live", trigger: "manual", started_at: at(2) });
    await store.heartbeatScan("live", at(30));
    await scan("ok", 5, [], []);
    expect(await store.abortOrphanedScans(at(20))).toBe(2);
    expect(await store.getScan("live")).toMatchObject({ status: "running" });
    await store.heartbeatScan("live", at(40));
    expect(await store.abortOrphanedScans(at(35))).toBe(0);
    expect(await store.abortOrphanedScans(at(41))).toBe(1);
    expect(await store.getScan("r1")).toMatchObject({ status: "aborted", error: ABORTED_ERROR });
    expect((await store.getScan("r1"))?.finished_at).toBeInstanceOf(Date);
    expect(await store.getScan("ok")).toMatchObject({ status: "succeeded" });
    expect(await store.getRunningScan()).toBeNull();
    expect(await store.abortOrphanedScans(at(99))).toBe(0);
    // a scan aborted by another replica's start-up may still finish: its results are real
    const finished = await store.completeScan({ scan_id: "r2", finished_at: at(9), results: [result("m", "r")], statuses: [status("m", "healthy")] });
    expect(finished).toMatchObject({ status: "succeeded", error: null });
  });

  it("elects exactly one claimer per (name, fire time)", async () => {
    const fire = new Date("2026-01-01T00:15:00.000Z");
    const claims = await Promise.all(Array.from({ length: 5 }, () => store.claimRun("reliability-scan", fire)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store.claimRun("reliability-scan", fire)).toBe(false);
    expect(await store.claimRun("reliability-scan", new Date("2026-01-01T00:30:00.000Z"))).toBe(true);
    expect(await store.claimRun("other-task", fire)).toBe(true);
  });

  it("prunes old history but keeps the newest scan and current statuses", async () => {
    await scan("old", 10, [result("gone", "r")], [status("gone", "healthy")]);
    await scan("mid", 20, [result("m", "r", "failing")], [status("m", "unreliable")]);
    await scan("new", 30, [result("m", "r")], [status("m", "healthy")]);
    await store.createScan({ scan_id: "running", trigger: "manual", started_at: at(1) });
    await store.claimRun("task", at(0));

    await store.prune(new Date(Date.now() + 60_000));
    expect(await store.getScan("mid")).toBeNull();
    expect(await store.getScan("new")).not.toBeNull();
    // "old" is still the scan behind gone's current status, so its results stay
    expect(await store.getScan("old")).not.toBeNull();
    expect(await store.latestResultsFor("gone")).toHaveLength(1);
    expect(await store.getScan("running")).toMatchObject({ status: "running" });
    expect(await store.latestStatus("m")).toMatchObject({ status: "healthy", since: at(30) });
    expect(await store.statusHistory("m", 10)).toEqual([{ status: "healthy", from: at(30), to: null }]);
    expect(await store.claimRun("task", at(0))).toBe(true);
  });

  it("writes a large scan in one transaction", async () => {
    const results = Array.from({ length: 5_000 }, (_, i) => result(`metric_${i % 50}`, `rule_${i}`));
    const statuses = Array.from({ length: 50 }, (_, i) => status(`metric_${i}`, "healthy", 100));
    const done = await scan("big", 10, results, statuses);
    expect(done.summary?.total).toBe(5_000);
    expect((await store.latestResults())?.results).toHaveLength(5_000);
    expect(await store.latestStatuses()).toHaveLength(50);
  });

  it("answers ping, and reports false once closed", async () => {
    expect(await store.ping()).toBe(true);
    await store.close();
    expect(await store.ping()).toBe(false);
    await store.close(); // idempotent
    store = await createStore(db.options);
  });
});
