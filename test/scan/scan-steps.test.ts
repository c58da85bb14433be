// The scan's pure steps (src/scan/scan-write.ts, replica-memory.ts): what goes to the store and
// what the replica remembers of it, from plain values.
import { describe, expect, it } from "vitest";
import type { LoadChange, LoadHistory } from "../../src/evaluate/load-arrivals.js";
import type { PreviousCheck } from "../../src/evaluate/check-pass.js";
import type { SeriesVerdicts } from "../../src/evaluate/series-verdicts.js";
import { loadsAfter, passAfter, type KnownLoads } from "../../src/scan/replica-memory.js";
import { verdictsWrite } from "../../src/scan/scan-write.js";
import type { ScanRecord } from "../../src/store/store.js";
import { at, observation } from "../store/fixtures.js";

const verdicts = (key: string, value: number): SeriesVerdicts => ({
  check_key: key,
  start: 0,
  step: 86_400_000,
  value: Float64Array.from([value]),
  expected: Float32Array.from([value]),
  lower: Float32Array.from([value - 1]),
  upper: Float32Array.from([value + 1]),
  flags: Uint8Array.from([0]),
  excluded: null,
});
const record = (scanId: string, written = true): ScanRecord => ({
  scan_id: scanId,
  trigger: "manual",
  status: "succeeded",
  started_at: at(0),
  finished_at: at(1),
  error: null,
  summary: null,
  catalog_version: "v1",
  results_written: written,
});

describe("the scan's verdicts write", () => {
  const all = new Map([
    ["a", verdicts("a", 1)],
    ["b", verdicts("b", 2)],
  ]);

  it("sends every series when the replica holds no scan's verdicts", () => {
    expect(verdictsWrite(null, all)).toEqual({ all, changed: ["a", "b"], removed: [], basis: null });
    expect(verdictsWrite({ scanId: null, verdicts: new Map() }, all)).toEqual({ all, changed: ["a", "b"], removed: [], basis: null });
  });

  it("sends only what changed against the verdicts held, naming the scan they are from", () => {
    const held = new Map([
      ["a", verdicts("a", 1)],
      ["b", verdicts("b", 5)],
      ["gone", verdicts("gone", 3)],
    ]);
    expect(verdictsWrite({ scanId: "s1", verdicts: held }, all)).toEqual({ all, changed: ["b"], removed: ["gone"], basis: "s1" });
  });

  it("sends the series another replica re-scored since, whatever the scan scored, and deletes them when it scored none", () => {
    const held = new Map([
      ["a", verdicts("a", 1)],
      ["b", verdicts("b", 2)],
      ["c", verdicts("c", 3)],
    ]);
    // a: unchanged against the held copy, but that copy may not be the store's; c: no longer scored; x: held nowhere
    expect(verdictsWrite({ scanId: "s1", verdicts: held, unsure: new Set(["a", "c", "x"]) }, all)).toEqual({
      all,
      changed: ["a"],
      removed: ["c", "x"],
      basis: "s1",
    });
  });
});

describe("what the replica remembers after its scan", () => {
  it("keeps the pass the store now holds, or forgets it when the scan's results were not written", () => {
    const previous = new Map<string, PreviousCheck>([
      ["k1", { basis: "x", newest: null, observation: observation(1) }],
      ["k2", { basis: "y", newest: null, observation: observation(2) }],
    ]);
    const passes = new Map([
      ["k1", { basis: "x2", newest: 7 }],
      ["k2", null],
    ]);
    const observations = new Map([["k1", observation(3)]]);
    expect(passAfter(previous, passes, observations, record("s2"))).toEqual({
      scanId: "s2",
      checks: new Map([["k1", { basis: "x2", newest: 7, observation: observation(3) }]]),
    });
    expect(passAfter(previous, passes, observations, record("s2", false))).toBeNull();
    expect(passAfter(null, passes, observations, record("s2"))).toBeNull();
    expect(passAfter(previous, undefined, observations, record("s2"))).toBeNull();
  });

  it("takes the scan's loads into its copy, tagged with the scan and its clock", () => {
    const state = { series: "t", first_seen: 10, newest: 100, rows: 5, parts: "p1", loads: 1, last_load: 100 };
    const history: LoadHistory = { state, arrivals: [{ at: 100, gap: null, slack: 0 }] };
    const known: KnownLoads = { scanId: "s1", histories: new Map([["t", history]]), clock: 50 };
    const change: LoadChange = {
      state: { ...state, newest: 200, rows: 9, parts: "p2", loads: 2, last_load: 200 },
      arrival: { at: 200, gap: 100, slack: 0 },
    };
    const next = loadsAfter(known, new Map([["t", change]]), record("s2"), 210)!;
    expect(next.scanId).toBe("s2");
    expect(next.clock).toBe(210);
    expect(next.histories.get("t")!.state).toEqual(change.state);
    expect(next.histories.get("t")!.arrivals.map((a) => a.at)).toEqual([100, 200]);
    expect(loadsAfter(known, new Map(), record("s3", false), 220)).toBeNull();
    expect(loadsAfter(null, new Map([["t", change]]), record("s3"), 220)).toBeNull();
  });
});
