// check_passes, the previous pass of incremental scans, on every store target: written beside
// the results in completeScan's transaction, only where a basis changed; read back with the
// open results; forgotten by a null, by a full scan, and never written by an overtaken scan.
import { describe, expect, it } from "vitest";
import type { FinishedScan } from "../../src/store/store.js";
import { storeTargets } from "./databases.js";
import { withStore } from "./with-store.js";
import { at, finished, observation, status, test } from "./fixtures.js";

describe.each(storeTargets)("check passes on $name", (target) => {
  const s = withStore(target);
  const tests = [test("m", "k1"), test("m", "k2"), test("m", "fresh")];

  async function scan(
    id: string,
    minute: number,
    extra: Partial<FinishedScan>,
    observations = { k1: observation(1), k2: observation(2), fresh: observation(0) },
  ) {
    await s.store.createScan({ scan_id: id, trigger: "schedule", started_at: at(minute - 1) });
    s.clock = at(minute);
    return s.store.completeScan({ ...finished(id, tests, observations, [status("m", "unreliable")]), ...extra });
  }
  /** check_passes as stored: key -> [basis, newest, scan_id] (the store closes meanwhile: PGlite is one process per directory). */
  async function rows(): Promise<Record<string, [string, string | null, string]>> {
    const found = await s.inspect<{ key: string; basis: string; newest: string | null; scan_id: string }>(
      `SELECT c."key", p."basis", p."newest"::text AS "newest", p."scan_id" FROM "check_passes" p JOIN "checks" c ON c."id" = p."check_id"`,
    );
    return Object.fromEntries(found.map((r) => [r.key, [r.basis, r.newest, r.scan_id]]));
  }

  it("keeps each basis beside its result, rewrites only what changed, and forgets on null", async () => {
    await scan("s1", 10, {
      passes: new Map([
        ["k1", { basis: "b1", newest: null }],
        ["k2", { basis: "b2", newest: null }],
        ["fresh", { basis: "bf", newest: 1_700_000_000 }],
      ]),
    });
    const passes = await s.store.readPasses();
    expect(passes.get("k1")).toEqual({ basis: "b1", newest: null, observation: observation(1) });
    expect(passes.get("fresh")).toEqual({ basis: "bf", newest: 1_700_000_000, observation: observation(0) });

    // k1 unchanged (not even sent), k2's basis the same, fresh re-judged with the same newest: nothing rewritten
    await scan("s2", 20, {
      passes: new Map([
        ["k2", { basis: "b2", newest: null }],
        ["fresh", { basis: "bf", newest: 1_700_000_000 }],
      ]),
      unchanged: new Set(["k1"]),
    });
    expect(await rows()).toEqual({ k1: ["b1", null, "s1"], k2: ["b2", null, "s1"], fresh: ["bf", "1700000000", "s1"] });

    // k2 read again on new data; k1 lost its basis (e.g. its table became a view)
    await scan("s3", 30, {
      passes: new Map([
        ["k2", { basis: "b2'", newest: null }],
        ["k1", null],
      ]),
      unchanged: new Set(["fresh"]),
    });
    expect(await rows()).toEqual({ k2: ["b2'", null, "s3"], fresh: ["bf", "1700000000", "s1"] });
  });

  it("writes no result of a check kept as it was, but every other", async () => {
    await scan("s1", 10, { passes: new Map([["k1", { basis: "b1", newest: null }]]) });
    await scan(
      "s2",
      20,
      { passes: new Map(), unchanged: new Set(["k1"]) },
      { k1: observation(99), k2: observation(5), fresh: observation(0) },
    );
    const state = await s.store.readState({ historyLimit: 0 });
    expect(state.observations.get("k1")).toEqual(observation(1)); // the store's, as it was
    expect(state.observations.get("k2")).toEqual(observation(5));
  });

  it("forgets every basis after a full scan, and writes none for an overtaken scan", async () => {
    await scan("s1", 10, { passes: new Map([["k1", { basis: "b1", newest: null }]]) });
    await scan("full", 20, {});
    expect(await s.store.readPasses()).toEqual(new Map());

    await s.store.createScan({ scan_id: "slow", trigger: "schedule", started_at: at(21) });
    await scan("fast", 30, { passes: new Map([["k1", { basis: "fast", newest: null }]]) });
    s.clock = at(40);
    const slow = await s.store.completeScan({
      ...finished("slow", tests, { k1: observation(7) }, [status("m", "healthy")]),
      passes: new Map([["k1", { basis: "slow", newest: null }]]),
    });
    expect(slow.results_written).toBe(false);
    expect((await s.store.readPasses()).get("k1")).toEqual({ basis: "fast", newest: null, observation: observation(1) });
  });
});
