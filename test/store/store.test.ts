// The Store contract, run against every target in databases.ts (PGlite, and PostgreSQL when
// DATABASE_URL is set).
import { describe, expect, it } from "vitest";
import type { MetricStatus } from "../../src/derive/types.js";
import { ABORTED_ERROR } from "../../src/store/prisma-store.js";
import { storeTargets } from "./databases.js";
import { withStore } from "./with-store.js";
import { at, finished, observation, status, test } from "./fixtures.js";

describe.each(storeTargets)("store on $name", (target) => {
  const s = withStore(target);

  /** Creates and completes a scan that finishes at `minute`. */
  async function scan(id: string, minute: number, ...rest: Parameters<typeof finished> extends [string, ...infer R] ? R : never) {
    await s.store.createScan({ scan_id: id, trigger: "manual", started_at: at(minute - 1) });
    s.clock = at(minute);
    return s.store.completeScan(finished(id, ...rest));
  }
  const inspect = <T = Record<string, unknown>>(sql: string) => s.inspect<T>(sql);
  const observations = async () => (await s.store.readState({ historyLimit: 0 })).observations;
  const count = async (table: string) => (await inspect<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}"`))[0]!.n;

  it("creates, completes and reads back a scan", async () => {
    const created = await s.store.createScan({ scan_id: "s1", trigger: "schedule", started_at: at(0) });
    expect(created).toEqual({
      scan_id: "s1",
      trigger: "schedule",
      status: "running",
      started_at: at(0),
      finished_at: null,
      error: null,
      summary: null,
      catalog_version: null,
    });
    expect(await s.store.getRunningScan()).toEqual(created);

    const big = 5_000_000_000; // beyond INT4: the columns are BIGINT and come back as numbers
    const tests = [test("orders", "k1"), test("orders", "k2"), test("aov", "k1")];
    s.clock = at(1);
    const {
      results_written: written,
      previous_scan_id: previousScan,
      ...done
    } = await s.store.completeScan({
      ...finished(
        "s1",
        tests,
        {
          k1: observation(big, big * 2),
          k2: { outcome: "not_evaluated", rows_affected: 0, rows_total: 0, message: "not evaluated: x", sample_sql: "SELECT 1" },
        },
        [status("orders", "unreliable"), status("aov", "healthy")],
      ),
      summary: { total: 3, passing: 1, failing: 1, warning: 1 },
    });
    expect(done).toMatchObject({
      status: "succeeded",
      finished_at: at(1),
      error: null,
      summary: { total: 3, passing: 1, failing: 1, warning: 1 },
      catalog_version: "v1",
    });
    expect(written).toBe(true); // no later scan had succeeded
    expect(previousScan).toBeNull(); // the first to succeed
    expect(await s.store.getScan("s1")).toEqual(done);
    expect(await s.store.getScan("nope")).toBeNull();
    expect(await s.store.getRunningScan()).toBeNull();
    expect(await s.store.newestSucceededScan()).toEqual(done);

    const state = await s.store.readState({ historyLimit: 10 });
    expect(state.scan).toEqual(done);
    expect(state.observations.get("k1")).toEqual(observation(big, big * 2));
    expect(typeof state.observations.get("k1")?.rows_affected).toBe("number");
    expect(state.observations.get("k2")).toEqual({
      outcome: "not_evaluated",
      rows_affected: 0,
      rows_total: 0,
      message: "not evaluated: x",
      sample_sql: "SELECT 1",
    });
    expect(state.statuses).toEqual([
      { ...status("aov", "healthy"), checked_at: at(1), since: at(1), scan_id: "s1" },
      { ...status("orders", "unreliable"), checked_at: at(1), since: at(1), scan_id: "s1" },
    ]);
    expect(state.history.get("orders")).toEqual([{ status: "unreliable", from: at(1), to: null }]);
    // one row per distinct check, one definition per (metric, test)
    expect(await count("checks")).toBe(2);
    expect(await count("test_definitions")).toBe(3);
    expect(await count("check_results")).toBe(2);
  });

  it("records failed scans without touching results or statuses", async () => {
    await s.store.createScan({ scan_id: "f1", trigger: "manual", started_at: at(0) });
    const failed = await s.store.failScan("f1", at(2), "warehouse unavailable");
    expect(failed).toMatchObject({ status: "failed", finished_at: at(2), error: "warehouse unavailable", summary: null });
    expect(await s.store.newestSucceededScan()).toBeNull();
    expect(await s.store.latestStatuses()).toEqual([]);
    expect((await s.store.readState({ historyLimit: 5 })).observations.size).toBe(0);
    await expect(s.store.failScan("missing", at(3), "x")).rejects.toThrow(/scan missing not found/);
    await expect(s.store.completeScan(finished("f1", [], {}, []))).rejects.toThrow(/already failed/);
  });

  it("writes nothing but the scan row when nothing changed", async () => {
    const tests = [test("m1", "k1"), test("m2", "k1"), test("m2", "k2")];
    const obs = { k1: observation(0), k2: observation(3) };
    await scan("a", 10, tests, obs, [status("m1", "healthy"), status("m2", "unreliable")]);
    const before = {
      results: await count("check_results"),
      changes: await count("status_changes"),
      definitions: await count("test_definitions"),
    };
    await scan("b", 20, tests, obs, [status("m1", "healthy"), status("m2", "unreliable")]);
    await scan("c", 30, tests, obs, [status("m1", "healthy"), status("m2", "unreliable")]);
    expect({
      results: await count("check_results"),
      changes: await count("status_changes"),
      definitions: await count("test_definitions"),
    }).toEqual(before);
    // the rows were not rewritten either: they still name the scan that last changed them
    expect(await s.store.latestStatus("m1")).toMatchObject({ status: "healthy", since: at(10), checked_at: at(10), scan_id: "a" });
    expect(await inspect(`SELECT DISTINCT "scan_id" FROM "check_results"`)).toEqual([{ scan_id: "a" }]);
  });

  it("opens a new result period only for the checks whose values changed", async () => {
    const tests = [test("m", "k1"), test("m", "k2")];
    await scan("a", 10, tests, { k1: observation(0), k2: observation(0) }, [status("m", "healthy")]);
    await scan("b", 20, tests, { k1: observation(5), k2: observation(0) }, [status("m", "unreliable")]);
    const rows = await inspect<{ key: string; rows_affected: string; from: Date; to: Date | null }>(
      `SELECT c."key", r."rows_affected"::text, r."valid_from" AS "from", r."valid_to" AS "to" FROM "check_results" r JOIN "checks" c ON c."id" = r."check_id" ORDER BY c."key", r."valid_from"`,
    );
    expect(rows).toEqual([
      { key: "k1", rows_affected: "0", from: at(10), to: at(20) },
      { key: "k1", rows_affected: "5", from: at(20), to: null },
      { key: "k2", rows_affected: "0", from: at(10), to: null },
    ]);
    expect((await observations()).get("k1")?.rows_affected).toBe(5);
  });

  it("keeps the outcome: a check that failed to compute with the same counts is a new period", async () => {
    const tests = [test("m", "k1")];
    await scan("a", 10, tests, { k1: observation(20) }, [status("m", "degraded")]);
    const failed = observation(20, 10_000, { outcome: "failed" }); // only the outcome differs
    await scan("b", 20, tests, { k1: failed }, [status("m", "unreliable")]);
    expect((await observations()).get("k1")).toEqual(failed);
    expect(await count("check_results")).toBe(2);
  });

  it("keeps `since` while a status holds and records each change", async () => {
    const tests = [test("m", "k"), test("other", "o")];
    await scan("a", 10, tests, { k: observation() }, [status("m", "healthy"), status("other", "degraded")]);
    await scan("b", 20, tests, { k: observation() }, [status("m", "healthy")]);
    expect(await s.store.latestStatus("m")).toMatchObject({ status: "healthy", since: at(10) });

    await scan("c", 30, tests, { k: observation(1) }, [status("m", "unreliable")]);
    await scan("d", 40, tests, { k: observation() }, [status("m", "healthy")]);
    expect(await s.store.latestStatus("m")).toMatchObject({ status: "healthy", since: at(40), checked_at: at(40), scan_id: "d" });
    expect(await s.store.statusHistory("m", 10)).toEqual([
      { status: "healthy", from: at(40), to: null },
      { status: "unreliable", from: at(30), to: at(40) },
      { status: "healthy", from: at(10), to: at(30) },
    ]);
    expect(await s.store.statusHistory("m", 2)).toHaveLength(2);
    expect(await s.store.statusHistory("m", 0)).toEqual([]);
    expect((await s.store.readState({ historyLimit: 2 })).history.get("m")).toEqual([
      { status: "healthy", from: at(40), to: null },
      { status: "unreliable", from: at(30), to: at(40) },
    ]);
    // a metric absent from later scans is left alone
    expect(await s.store.latestStatus("other")).toMatchObject({ status: "degraded", since: at(10), checked_at: at(10), scan_id: "a" });
    expect(await s.store.statusHistory("other", 10)).toEqual([{ status: "degraded", from: at(10), to: null }]);
  });

  it("writes only the statuses that changed since the replica's basis, and every one on another basis", async () => {
    const tests = [test("m", "k"), test("n", "j")];
    await scan("a", 10, tests, { k: observation() }, [status("m", "healthy"), status("n", "healthy")]);
    // On basis "a" only `changed` is written: m's status here is never sent, so it stays.
    const complete = async (id: string, minute: number, statuses: MetricStatus[], basis: string, changed: MetricStatus[]) => {
      await s.store.createScan({ scan_id: id, trigger: "manual", started_at: at(minute - 1) });
      s.clock = at(minute);
      await s.store.completeScan({ ...finished(id, tests, { k: observation() }, statuses), statusesChanged: { basis, changed } });
    };
    await complete("b", 20, [status("m", "unreliable"), status("n", "degraded")], "a", [status("n", "degraded")]);
    expect(await s.store.latestStatus("m")).toMatchObject({ status: "healthy", since: at(10), scan_id: "a" });
    expect(await s.store.latestStatus("n")).toMatchObject({ status: "degraded", since: at(20), scan_id: "b" });
    // A basis that is not the store's newest scan (another replica's scan came between): all of them.
    await complete("c", 30, [status("m", "unreliable"), status("n", "degraded")], "a", []);
    expect(await s.store.latestStatus("m")).toMatchObject({ status: "unreliable", since: at(30), scan_id: "c" });
    expect(await s.store.statusHistory("m", 10)).toEqual([
      { status: "unreliable", from: at(30), to: null },
      { status: "healthy", from: at(10), to: at(30) },
    ]);
  });

  it("leaves the check results the replica held as they are, unless another scan came between", async () => {
    const tests = [test("m", "k"), test("m", "j")];
    await scan("a", 10, tests, { k: observation(0), j: observation(0) }, [status("m", "healthy")]);
    const complete = async (id: string, minute: number, observations: Parameters<typeof finished>[2], basis: string) => {
      await s.store.createScan({ scan_id: id, trigger: "manual", started_at: at(minute - 1) });
      s.clock = at(minute);
      await s.store.completeScan({
        ...finished(id, tests, observations, [status("m", "healthy")]),
        observationsSame: { basis, keys: new Set(["k"]) },
      });
    };
    // k is listed as held: what the scan says of it here is never sent, so the stored row stands.
    await complete("b", 20, { k: observation(5), j: observation(2) }, "a");
    let stored = await observations();
    expect(stored.get("k")).toMatchObject({ rows_affected: 0 });
    expect(stored.get("j")).toMatchObject({ rows_affected: 2 });
    // On a basis that is not the store's newest scan, every result is sent.
    await complete("c", 30, { k: observation(5), j: observation(2) }, "a");
    stored = await observations();
    expect(stored.get("k")).toMatchObject({ rows_affected: 5 });
  });

  it("does not let a scan overtaken by a later one roll statuses or results back", async () => {
    const tests = [test("m", "k")];
    await s.store.createScan({ scan_id: "slow", trigger: "schedule", started_at: at(1) });
    await scan("fast", 10, tests, { k: observation(0) }, [status("m", "healthy")]);
    s.clock = at(20);
    const slow = await s.store.completeScan(finished("slow", tests, { k: observation(9) }, [status("m", "unreliable")]));
    expect(slow).toMatchObject({ status: "succeeded", finished_at: at(20), results_written: false, previous_scan_id: "fast" });
    expect(await s.store.latestStatus("m")).toMatchObject({ status: "healthy", since: at(10) });
    expect((await observations()).get("k")?.rows_affected).toBe(0);
  });

  it("stores a catalogue version's definitions once, and a new version beside it", async () => {
    const v1 = [test("m", "k1"), test("m", "k2")];
    await scan("a", 10, v1, { k1: observation(), k2: observation() }, [status("m", "healthy")]);
    await scan("b", 20, v1, { k1: observation(), k2: observation() }, [status("m", "healthy")]);
    expect(await count("test_definitions")).toBe(2);
    const v2 = [test("m", "k1", { tolerance: 0.5 }), test("m", "k3")];
    await scan("c", 30, v2, { k1: observation(), k3: observation() }, [status("m", "healthy")], "v2");
    expect(await inspect(`SELECT "hash" FROM "catalog_versions" ORDER BY "hash"`)).toEqual([{ hash: "v1" }, { hash: "v2" }]);
    expect(await count("test_definitions")).toBe(4);
    expect(await count("checks")).toBe(3);
    expect(
      await inspect(`SELECT "tolerance" FROM "test_definitions" WHERE "catalog_version" = 'v2' ORDER BY "tolerance" DESC LIMIT 1`),
    ).toEqual([{ tolerance: 0.5 }]);
  });

  it("writes a catalogue version ahead of the scan that completes it, once", async () => {
    const v1 = [test("m", "k1"), test("m", "k2"), test("n", "k2")];
    await s.store.writeCatalogVersion({ version: "v1", tests: v1 });
    expect(await count("test_definitions")).toBe(3);
    expect(await count("checks")).toBe(2);
    await s.store.writeCatalogVersion({ version: "v1", tests: v1 });
    await scan("a", 10, v1, { k1: observation(), k2: observation(1) }, [status("m", "healthy"), status("n", "healthy")]);
    expect(await count("test_definitions")).toBe(3);
    expect(await count("checks")).toBe(2);
    expect((await s.store.readState({ historyLimit: 1 })).observations.get("k2")).toEqual(observation(1));
  });

  it("keeps everything across a restart and applies no migration twice", async () => {
    await scan("a", 10, [test("m", "k")], { k: observation(2) }, [status("m", "healthy")]);
    const before = await s.store.readState({ historyLimit: 10 });
    await s.reopen();
    expect(await s.store.readState({ historyLimit: 10 })).toEqual(before);
    const rows = await s.inspect<{ n: number; names: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT migration_name)::int AS names FROM "_prisma_migrations"`,
    );
    expect(rows[0]?.n).toBeGreaterThan(0);
    expect(rows[0]?.n).toBe(rows[0]?.names);
  });

  it("marks scans left running by a dead process as aborted, but not one whose heartbeat is fresh", async () => {
    await s.store.createScan({ scan_id: "r1", trigger: "startup", started_at: at(0) });
    await s.store.createScan({ scan_id: "r2", trigger: "schedule", started_at: at(1) });
    await s.store.createScan({ scan_id: "live", trigger: "manual", started_at: at(2) });
    await s.store.heartbeatScan("live", at(30));
    expect(await s.store.abortOrphanedScans(at(20))).toBe(2);
    expect(await s.store.getScan("live")).toMatchObject({ status: "running" });
    await s.store.heartbeatScan("live", at(40));
    expect(await s.store.abortOrphanedScans(at(35))).toBe(0);
    expect(await s.store.abortOrphanedScans(at(41))).toBe(1);
    expect(await s.store.getScan("r1")).toMatchObject({ status: "aborted", error: ABORTED_ERROR });
    expect((await s.store.getScan("r1"))?.finished_at).toBeInstanceOf(Date);
    expect(await s.store.getRunningScan()).toBeNull();
    expect(await s.store.abortOrphanedScans(at(99))).toBe(0);
    // a scan aborted by another replica's start-up may still finish: its results are real
    s.clock = at(9);
    const done = await s.store.completeScan(finished("r2", [test("m", "k")], { k: observation() }, [status("m", "healthy")]));
    expect(done).toMatchObject({ status: "succeeded", error: null });
  });

  it("elects exactly one claimer per (name, fire time)", async () => {
    const fire = new Date("2026-01-01T00:15:00.000Z");
    const claims = await Promise.all(Array.from({ length: 5 }, () => s.store.claimRun("reliability-scan", fire)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await s.store.claimRun("reliability-scan", fire)).toBe(false);
    expect(await s.store.claimRun("reliability-scan", new Date("2026-01-01T00:30:00.000Z"))).toBe(true);
    expect(await s.store.claimRun("other-task", fire)).toBe(true);
  });

  it("prunes old history but keeps the newest scan, current results and current statuses", async () => {
    await scan("old", 10, [test("gone", "g")], { g: observation() }, [status("gone", "healthy")], "v0");
    await scan("mid", 20, [test("m", "k")], { k: observation(1) }, [status("m", "unreliable")]);
    await scan("new", 30, [test("m", "k")], { k: observation(0) }, [status("m", "healthy")]);
    await s.store.createScan({ scan_id: "running", trigger: "manual", started_at: at(1) });
    await s.store.claimRun("task", at(0));

    await s.store.prune(new Date(Date.now() + 60_000));
    expect(await s.store.getScan("old")).toBeNull();
    expect(await s.store.getScan("mid")).toBeNull();
    expect(await s.store.getScan("new")).not.toBeNull();
    expect(await s.store.getScan("running")).toMatchObject({ status: "running" });
    // version v0 is no longer run by any kept scan: its definitions and checks go
    expect(await inspect(`SELECT "hash" FROM "catalog_versions"`)).toEqual([{ hash: "v1" }]);
    expect([...(await observations()).keys()]).toEqual(["k"]);
    expect(await count("check_results")).toBe(1);
    // a current status survives the scans that wrote it
    expect(await s.store.latestStatus("gone")).toMatchObject({ status: "healthy", since: at(10) });
    expect(await s.store.latestStatus("m")).toMatchObject({ status: "healthy", since: at(30) });
    expect(await s.store.statusHistory("m", 10)).toEqual([{ status: "healthy", from: at(30), to: null }]);
    expect(await s.store.claimRun("task", at(0))).toBe(true);
  });

  it("sweeps checks no version uses at a store's first prune and after a version went, not on every prune", async () => {
    const orphan = () =>
      inspect(
        `INSERT INTO "checks" ("id", "key", "datasource", "table_name", "rule", "check", "sample_sql")
         VALUES (-42, 'orphan', 'default', 'db.t', 'r', 'c', 'SELECT 1') RETURNING "id"`,
      );
    const orphans = async () => (await inspect(`SELECT "key" FROM "checks" WHERE "key" = 'orphan'`)).length;
    await orphan(); // left by an earlier process
    await scan("a", 10, [test("m", "k")], { k: observation() }, [status("m", "healthy")], "v0");
    await s.store.prune(new Date(0));
    expect(await orphans()).toBe(0);
    expect([...(await observations()).keys()]).toEqual(["k"]);

    await orphan();
    await scan("b", 20, [test("m", "k")], { k: observation() }, [status("m", "healthy")], "v0");
    await s.store.prune(new Date(0)); // nothing to delete: no sweep
    expect(await orphans()).toBe(1);

    await scan("c", 30, [test("m", "k2")], { k2: observation() }, [status("m", "healthy")], "v1");
    await s.store.prune(at(25)); // scans a and b go, and with them v0: a sweep
    expect(await inspect(`SELECT "hash" FROM "catalog_versions"`)).toEqual([{ hash: "v1" }]);
    expect(await orphans()).toBe(0);
    expect(await inspect(`SELECT "key" FROM "checks" ORDER BY "key"`)).toEqual([{ key: "k2" }]);
  });

  it("writes a large scan in a few statements and reads it back in pages", async () => {
    // 3,000 metrics of 10 tests over 12,000 distinct checks (7,919 is prime to 12,000: no repeats within a metric)
    const tests = Array.from({ length: 30_000 }, (_, i) => test(`metric_${Math.floor(i / 10)}`, `k${(i * 7_919) % 12_000}`));
    const observations = Object.fromEntries(Array.from({ length: 12_000 }, (_, i) => [`k${i}`, observation(i % 7)]));
    const statuses = Array.from({ length: 3_000 }, (_, i) => status(`metric_${i}`, i % 2 ? "healthy" : "degraded", 10));
    const done = await scan("big", 10, tests, observations, statuses);
    expect(done.status).toBe("succeeded");
    const state = await s.store.readState({ historyLimit: 5 });
    expect(state.observations.size).toBe(12_000);
    expect(state.observations.get("k11999")).toEqual(observation(11_999 % 7));
    expect(state.statuses).toHaveLength(3_000);
    expect(state.history.size).toBe(3_000);
    expect(await count("test_definitions")).toBe(30_000);
  });

  it("answers ping, and reports false once closed", async () => {
    expect(await s.store.ping()).toBe(true);
    await s.store.close();
    expect(await s.store.ping()).toBe(false);
    await s.store.close(); // idempotent
  });
});
