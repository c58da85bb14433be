// Incidents in the store, on every target (PGlite, and PostgreSQL when DATABASE_URL is set):
// opened, extended and resolved inside completeScan's transaction, read back whole by readState,
// untouched by scans that change nothing, by overtaken scans and by failed ones, pruned once resolved.
import { describe, expect, it } from "vitest";
import type { TableProblem } from "../../src/incidents/types.js";
import { storeTargets } from "./databases.js";
import { withStore } from "./with-store.js";
import { at, finished, observation, status, test } from "./fixtures.js";

const tests = [test("revenue", "k1"), test("orders", "k1"), test("orders", "k2")];
const ok = { k1: observation(0), k2: observation(0) };
const statuses = [status("revenue", "unreliable"), status("orders", "unreliable")];

const problem = (checks: string[], metrics: string[], table = "shop.orders"): TableProblem => ({
  datasource: "default",
  table,
  tests: checks.map((check_key) => ({
    check_key,
    rule: "measure_not_null",
    name: `${check_key} is not null`,
    check: `${check_key} IS NOT NULL`,
    column: check_key === "k1" ? "amount" : null,
    severity: "HIGH",
  })),
  metrics: metrics.map((metric_name) => ({
    metric_name,
    impact: "unreliable",
    relationship: metric_name === "ratio" ? "derived" : "direct",
  })),
});

describe.each(storeTargets)("incidents in the store on $name", (target) => {
  const s = withStore(target);

  async function scan(id: string, minute: number, problems?: TableProblem[]) {
    await s.store.createScan({ scan_id: id, trigger: "manual", started_at: at(minute - 1) });
    s.clock = at(minute);
    return s.store.completeScan({ ...finished(id, tests, ok, statuses), ...(problems ? { problems } : {}) });
  }
  const incidents = async () => (await s.store.readState({ historyLimit: 0 })).incidents ?? [];

  it("opens, extends and resolves one incident per table across scans, and reads it back whole", async () => {
    const first = await scan("s1", 1, [problem(["k1"], ["revenue", "orders", "ratio"])]);
    expect(first.incidents).toHaveLength(1);
    const [opened] = await incidents();
    expect(opened).toEqual(first.incidents![0]);
    expect(opened).toMatchObject({
      datasource: "default",
      table: "shop.orders",
      opened_at: at(1),
      resolved_at: null,
      opened_scan_id: "s1",
      resolved_scan_id: null,
    });
    expect(opened!.tests).toEqual([
      {
        check_key: "k1",
        rule: "measure_not_null",
        name: "k1 is not null",
        check: "k1 IS NOT NULL",
        column: "amount",
        severity: "HIGH",
        since: at(1),
        until: null,
      },
    ]);
    expect(opened!.metrics.map((m) => [m.metric_name, m.impact, m.relationship])).toEqual([
      ["revenue", "unreliable", "direct"],
      ["orders", "unreliable", "direct"],
      ["ratio", "unreliable", "derived"],
    ]);

    // The same problem again writes nothing.
    expect((await scan("s2", 2, [problem(["k1"], ["revenue", "orders", "ratio"])])).incidents).toEqual([]);
    // A second test fails while the first does: the same incident.
    const grown = await scan("s3", 3, [problem(["k1", "k2"], ["revenue", "orders", "ratio"])]);
    expect(grown.incidents!.map((i) => i.id)).toEqual([opened!.id]);
    const [extended] = await incidents();
    expect(extended!.tests.map((t) => [t.check_key, t.since, t.until])).toEqual([
      ["k1", at(1), null],
      ["k2", at(3), null],
    ]);
    expect(extended!.updated_at).toEqual(at(3));

    // Nothing fails: the scan that sees it resolves it.
    await scan("s4", 4, []);
    const [resolved] = await incidents();
    expect(resolved).toMatchObject({ id: opened!.id, resolved_at: at(4), resolved_scan_id: "s4" });
    expect(resolved!.tests.every((t) => t.until?.getTime() === at(4).getTime())).toBe(true);

    // The next problem is a new incident, listed first.
    await scan("s5", 5, [problem(["k2"], ["orders"])]);
    const listed = await incidents();
    expect(listed.map((i) => [i.opened_at, i.resolved_at])).toEqual([
      [at(5), null],
      [at(1), at(4)],
    ]);
  });

  it("a scan without problems to report, an overtaken scan and a failed scan open and resolve nothing", async () => {
    await scan("s1", 1, [problem(["k1"], ["revenue"])]);
    // No problems field (a caller that does not compute them): incidents stay as they are.
    expect((await scan("s2", 2)).incidents).toBeUndefined();
    // A scan that started before a succeeded one writes nothing.
    await s.store.createScan({ scan_id: "old", trigger: "manual", started_at: at(0) });
    await scan("s3", 3, [problem(["k1"], ["revenue"])]);
    s.clock = at(4);
    expect((await s.store.completeScan({ ...finished("old", tests, ok, statuses), problems: [] })).incidents).toBeUndefined();
    // A failed scan (warehouse fault) is only marked failed.
    await s.store.createScan({ scan_id: "s5", trigger: "manual", started_at: at(5) });
    await s.store.failScan("s5", at(6), "warehouse unavailable");
    const [still] = await incidents();
    expect(still).toMatchObject({ resolved_at: null, opened_at: at(1) });
  });

  it("reconciles with the store's open incidents, not its memory of them, after another replica changed them", async () => {
    const [opened] = (await scan("s1", 1, [problem(["k1"], ["revenue"])])).incidents!;
    // Another replica's scan (at minute 2) found k2 failing as well: it rewrote the incident whole.
    await s.inspect(
      `INSERT INTO "incident_tests" ("incident_id", "check_key", "position", "rule", "name", "check", "severity", "since")
       VALUES ($1, 'k2', 1, 'measure_not_null', 'k2 is not null', 'k2 IS NOT NULL', 'HIGH', $2)`,
      [opened!.id, at(2)],
    );
    await s.inspect(`UPDATE "incidents" SET "updated_at" = $2 WHERE "id" = $1`, [opened!.id, at(2)]);
    // This replica's next scan sees k1 failing only: k2 stopped failing, which only the store knows.
    const changed = (await scan("s3", 3, [problem(["k1"], ["revenue"])])).incidents!;
    expect(changed.map((i) => i.id)).toEqual([opened!.id]);
    expect(changed[0]!.tests.map((t) => [t.check_key, t.until])).toEqual([
      ["k1", null],
      ["k2", at(3)],
    ]);
    // Then another replica resolved it: the same problem opens a new incident here.
    await s.inspect(`UPDATE "incidents" SET "resolved_at" = $2, "resolved_scan_id" = 'other', "updated_at" = $2 WHERE "id" = $1`, [
      opened!.id,
      at(4),
    ]);
    const reopened = (await scan("s5", 5, [problem(["k1"], ["revenue"])])).incidents!;
    expect(reopened).toHaveLength(1);
    expect(reopened[0]!.id).not.toBe(opened!.id);
    // And a scan that changes nothing writes nothing (its memory matches the store).
    expect((await scan("s6", 6, [problem(["k1"], ["revenue"])])).incidents).toEqual([]);
  });

  it("prunes resolved incidents older than the retention, never open ones", async () => {
    await scan("s1", 1, [problem(["k1"], ["revenue"]), problem(["k9"], ["orders"], "shop.customers")]);
    await scan("s2", 2, [problem(["k9"], ["orders"], "shop.customers")]);
    await s.store.prune(at(3));
    const kept = await incidents();
    expect(kept.map((i) => [i.table, i.resolved_at])).toEqual([["shop.customers", null]]);
    expect(kept[0]!.tests.map((t) => t.check_key)).toEqual(["k9"]);
  });
});
