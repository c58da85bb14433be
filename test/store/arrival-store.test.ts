// freshness_anomaly's loads in the store, on every target (PGlite, and PostgreSQL when
// DATABASE_URL is set): written in the scan's transaction, only what changed, bounded per series
// exactly as a replica bounds its copy in memory (applyLoadChange), and nothing from a scan that
// was overtaken by a later one.
import { describe, expect, it } from "vitest";
import {
  applyLoadChange,
  LONG_GAPS_KEPT,
  RECENT_LOADS,
  seeLoads,
  type LoadChange,
  type LoadHistory,
} from "../../src/evaluate/load-arrivals.js";
import { storeTargets } from "./databases.js";
import { withStore } from "./with-store.js";
import { at, finished, observation, status, test } from "./fixtures.js";

describe.each(storeTargets)("load arrivals on $name", (target) => {
  const s = withStore(target, { per: "suite", clock: "real" });
  const tests = [test("orders", "fresh", { rule: "freshness_anomaly" })];
  let n = 0;

  async function scan(loads: ReadonlyMap<string, LoadChange>) {
    const id = `s${++n}`;
    await s.store.createScan({ scan_id: id, trigger: "manual", started_at: at(n) });
    return s.store.completeScan({ ...finished(id, tests, { fresh: observation(0, 1) }, [status("orders", "healthy")]), loads });
  }

  it("keeps the last sighting and the loads, bounded like the replica's copy", async () => {
    // Two series: one loaded every minute with an hour's pause before every 40th load, one seen once.
    let memory: LoadHistory | undefined;
    let t = 1_000_000;
    const once = seeLoads("b|db.once|at", undefined, { newest: 5, parts: null }, t).change!;
    // Batches of loads per scan would not happen (one load per series per scan): one scan each.
    for (let i = 0; i < RECENT_LOADS + 60; i++) {
      t += i % 40 === 0 ? 3600 + i : 60;
      const step = seeLoads("a|db.t|at", memory, { newest: t, parts: { rows: i + 1, fingerprint: `p${i}`, modified: t - 5 } }, t, t - 60);
      memory = step.change ? applyLoadChange(memory, step.change) : step.history;
      await scan(new Map([["a|db.t|at", step.change!], ...(i === 0 ? [["b|db.once|at", once] as const] : [])]));
    }
    const stored = await s.store.readLoads();
    expect(stored.get("a|db.t|at")).toEqual(memory);
    expect(memory!.arrivals).toHaveLength(RECENT_LOADS + LONG_GAPS_KEPT);
    expect(memory!.state).toMatchObject({ loads: RECENT_LOADS + 59, rows: RECENT_LOADS + 60 });
    // Dated by their parts' modification time: no slack.
    expect(memory!.arrivals.every((a) => a.slack === 0)).toBe(true);
    expect(stored.get("b|db.once|at")).toEqual({ state: once.state, arrivals: [] });
  }, 120_000);

  it("writes nothing from a scan a later one overtook", async () => {
    const before = await s.store.readLoads();
    const late = `s${++n}`;
    await s.store.createScan({ scan_id: late, trigger: "manual", started_at: at(0) });
    const change = seeLoads("c|db.other|at", undefined, { newest: 1, parts: null }, 5).change!;
    const record = await s.store.completeScan({
      ...finished(late, tests, { fresh: observation(0, 1) }, [status("orders", "healthy")]),
      loads: new Map([["c|db.other|at", change]]),
    });
    expect(record.results_written).toBe(false);
    expect(await s.store.readLoads()).toEqual(before);
  });
});
