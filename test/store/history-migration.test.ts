// The migration to history-by-change carries a store's data over: scans, current statuses and
// status periods as they were, and each metric's newest results as checks of a "legacy" version.
import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultMigrationsDir } from "../../src/store/package-root.js";
import { createStore } from "../../src/store/prisma-store.js";
import { type TestDatabase, storeTargets } from "./databases.js";

const BEFORE = ["20261122000000_init", "20261123000000_scan_heartbeat"];

describe.each(storeTargets)("history migration on $name", (target) => {
  let db: TestDatabase;
  let dir: string;

  beforeEach(async () => {
    db = await target.fresh();
    dir = await mkdtemp(path.join(os.tmpdir(), "mr-migrations-old-"));
    for (const name of BEFORE) await cp(path.join(defaultMigrationsDir(), name), path.join(dir, name), { recursive: true });
  });
  afterEach(async () => {
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps scans, statuses and periods, and each metric's newest results", async () => {
    await (await createStore({ ...db.options, migrationsDir: dir })).close();
    // The old shape: a result row per (metric, test) per scan.
    await db.query(`INSERT INTO "scans" ("id", "trigger", "status", "started_at", "finished_at", "tests_total", "tests_passing", "tests_failing", "tests_warning")
      VALUES ('s1', 'schedule', 'succeeded', '2026-01-01T00:00Z', '2026-01-01T00:01Z', 2, 1, 1, 0),
             ('s2', 'schedule', 'succeeded', '2026-01-01T00:10Z', '2026-01-01T00:11Z', 2, 1, 0, 1),
             ('s3', 'manual', 'failed', '2026-01-01T00:20Z', '2026-01-01T00:21Z', NULL, NULL, NULL, NULL)`);
    const row = (scan: string, metric: string, rule: string, status: string, affected: number, message: string) =>
      `('${scan}', '${metric}', '${rule}', '${rule} of ${metric}', '${rule} check', 'HIGH', 'high', '${status}', ${affected}, 100, '${message}', 'SELECT 1')`;
    await db.query(`INSERT INTO "test_results" ("scan_id", "metric", "rule", "name", "check", "severity", "confidence", "status", "rows_affected", "rows_total", "message", "sample_sql") VALUES
      ${row("s1", "orders", "measure_not_null", "failing", 5, "5 of 100 rows")},
      ${row("s1", "orders", "freshness", "passing", 0, "fresh")},
      ${row("s2", "orders", "measure_not_null", "warning", 0, "not evaluated: column missing: x")}`);
    await db.query(
      `INSERT INTO "metric_statuses" VALUES ('orders', 'degraded', true, 2, 1, 0, 1, '2026-01-01T00:11Z', '2026-01-01T00:11Z', 's2')`,
    );
    await db.query(`INSERT INTO "status_changes" ("metric", "status", "valid_from", "valid_to") VALUES
      ('orders', 'unreliable', '2026-01-01T00:01Z', '2026-01-01T00:11Z'), ('orders', 'degraded', '2026-01-01T00:11Z', NULL)`);

    const store = await createStore(db.options);
    try {
      const state = await store.readState({ historyLimit: 10 });
      expect(state.scan).toMatchObject({
        scan_id: "s2",
        catalog_version: "legacy",
        summary: { total: 2, passing: 1, failing: 0, warning: 1 },
      });
      expect(state.statuses).toEqual([
        expect.objectContaining({ metric_name: "orders", status: "degraded", since: new Date("2026-01-01T00:11Z"), scan_id: "s2" }),
      ]);
      expect(state.history.get("orders")?.map((p) => p.status)).toEqual(["degraded", "unreliable"]);
      // the newest result per (metric, rule, check), its outcome read from its message
      expect(state.observations).toEqual(
        new Map([
          ["legacy|orders|freshness|freshness check", { outcome: "measured", rows_affected: 0, rows_total: 100, message: "fresh" }],
          [
            "legacy|orders|measure_not_null|measure_not_null check",
            { outcome: "not_evaluated", rows_affected: 0, rows_total: 100, message: "not evaluated: column missing: x" },
          ],
        ]),
      );
      expect(await store.getScan("s3")).toMatchObject({ status: "failed", catalog_version: null });
    } finally {
      await store.close();
    }
    const tables = await db.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'test_results'`,
    );
    expect(tables).toEqual([]);
    const definitions = await db.query<{ metric: string; tolerance: number }>(
      `SELECT "metric", "tolerance" FROM "test_definitions" ORDER BY "rule"`,
    );
    // tolerances that judge the kept counts back to the kept status (warning: 1, others: 0)
    expect(definitions).toEqual([
      { metric: "orders", tolerance: 0 },
      { metric: "orders", tolerance: 1 },
    ]);
  });
});
