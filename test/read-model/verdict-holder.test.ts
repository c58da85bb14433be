// The verdicts a replica holds: a scan's complete set, series read on demand per scan, feedback's
// re-scored series; and which series a scan changed against them. Plain values.
import { describe, expect, it } from "vitest";
import { ANOMALOUS, sameVerdicts, toSeriesVerdicts, type SeriesVerdicts } from "../../src/evaluate/series-verdicts.js";
import { createVerdictHolder, verdictChanges } from "../../src/read-model/verdict-holder.js";
import { scoredSeries } from "../evaluate/scored-series.js";

const v = (key: string, values: number[], flags: number[] = values.map(() => 0)): SeriesVerdicts => ({
  check_key: key,
  start: 0,
  step: 3_600_000,
  value: Float64Array.from(values),
  expected: Float32Array.from(values, () => NaN),
  lower: Float32Array.from(values, () => NaN),
  upper: Float32Array.from(values, () => NaN),
  flags: Uint8Array.from(flags),
  excluded: null,
});

describe("verdict holder", () => {
  it("holds a scan's verdicts; a key the scan did not score has none; another scan's are not held", () => {
    const holder = createVerdictHolder();
    expect(holder.held()).toEqual({ scanId: null, verdicts: new Map() });
    const a = v("a", [1, 2]);
    holder.storeScan("s1", new Map([["a", a]]));
    expect(holder.get("s1", "a")).toBe(a);
    expect(holder.get("s1", "b")).toBeNull();
    expect(holder.get("s2", "a")).toBeUndefined();
    expect(holder.held().scanId).toBe("s1");
  });

  it("keeps what the store answered per scan, and feedback's series; each change moves the revision", () => {
    const holder = createVerdictHolder(3);
    const r0 = holder.revision();
    holder.load("s2", ["a", "b"], new Map([["a", v("a", [1])]]), holder.revision());
    expect(holder.get("s2", "a")).toEqual(v("a", [1]));
    expect(holder.get("s2", "b")).toBeNull();
    expect(holder.revision()).toBe(r0);
    holder.put("s2", v("a", [1], [ANOMALOUS]));
    expect(holder.get("s2", "a")!.flags[0]).toBe(ANOMALOUS);
    expect(holder.revision()).toBe(r0 + 1);
    // Past the bound the loaded series start again.
    holder.load("s2", ["c", "d"], new Map(), holder.revision());
    expect(holder.get("s2", "b")).toBeUndefined();
  });

  it("forgets everything when another replica's feedback re-scored a series: reads go to the store again", () => {
    const holder = createVerdictHolder();
    holder.storeScan("s1", new Map([["a", v("a", [1])]]));
    holder.load("s0", ["b"], new Map([["b", v("b", [2])]]), holder.revision());
    const r0 = holder.revision();
    holder.forget();
    expect(holder.get("s1", "a")).toBeUndefined();
    expect(holder.get("s0", "b")).toBeUndefined();
    expect(holder.held()).toEqual({ scanId: null, verdicts: new Map() });
    expect(holder.revision()).toBe(r0 + 1);
  });

  it("forgets one series another replica re-scored: only it is read again, and the next scan writes it", () => {
    const holder = createVerdictHolder();
    const a = v("a", [1]);
    const b = v("b", [2]);
    holder.storeScan(
      "s1",
      new Map([
        ["a", a],
        ["b", b],
      ]),
    );
    holder.load("s0", ["c"], new Map([["c", v("c", [3])]]), holder.revision());
    const r0 = holder.revision();
    holder.forget("a");
    expect(holder.revision()).toBe(r0 + 1);
    expect(holder.get("s1", "a")).toBeUndefined();
    expect(holder.get("s1", "b")).toBe(b);
    expect(holder.get("s0", "c")).toEqual(v("c", [3]));
    expect(holder.held()).toEqual({
      scanId: "s1",
      verdicts: new Map([
        ["a", a],
        ["b", b],
      ]),
      unsure: new Set(["a"]),
    });
    // The store's answer for it is held as the scan's again, current.
    const rescored = v("a", [1], [ANOMALOUS]);
    holder.load("s1", ["a"], new Map([["a", rescored]]), holder.revision());
    expect(holder.get("s1", "a")).toBe(rescored);
    expect(holder.held()).toEqual({
      scanId: "s1",
      verdicts: new Map([
        ["a", rescored],
        ["b", b],
      ]),
    });
    // A series the store no longer has is none; feedback put by this replica is current at once.
    holder.forget("b");
    holder.load("s1", ["b"], new Map(), holder.revision());
    expect(holder.get("s1", "b")).toBeNull();
    expect(holder.held().verdicts.has("b")).toBe(false);
    holder.forget("a");
    holder.put("s1", v("a", [9]));
    expect(holder.get("s1", "a")).toEqual(v("a", [9]));
    expect(holder.held().unsure).toBeUndefined();
  });

  it("does not hold a store answer read across a change: another replica's feedback during the read", () => {
    const holder = createVerdictHolder();
    holder.storeScan("s1", new Map([["a", v("a", [1])]]));
    holder.forget("a");
    // A read of "a" starts, then the notification of a newer re-scored series arrives.
    const asOf = holder.revision();
    holder.forget("a");
    expect(holder.load("s1", ["a"], new Map([["a", v("a", [1])]]), asOf)).toBe(false);
    expect(holder.get("s1", "a")).toBeUndefined();
    // Read again with nothing in between: held.
    const rescored = v("a", [1], [ANOMALOUS]);
    expect(holder.load("s1", ["a"], new Map([["a", rescored]]), holder.revision())).toBe(true);
    expect(holder.get("s1", "a")).toBe(rescored);
  });

  it("tells which series a scan changed, and which it no longer has", () => {
    const held = new Map([
      ["a", v("a", [1, 2])],
      ["b", v("b", [1])],
      ["gone", v("gone", [1])],
    ]);
    const next = new Map([
      ["a", v("a", [1, 2])],
      ["b", v("b", [1, NaN])],
      ["new", v("new", [1])],
    ]);
    expect(verdictChanges(held, next)).toEqual({ changed: ["b", "new"], removed: ["gone"] });
  });
});

describe("series verdicts", () => {
  it("keep every bucket of a scored series, missing values as NaN, and compare by value", () => {
    const kept = toSeriesVerdicts(
      "a",
      scoredSeries([
        {
          start: 0,
          value: NaN,
          expected: null,
          lower: null,
          upper: null,
          anomalous: false,
          feedback: false,
          in_detection: false,
          deviations: null,
          excluded: "holiday: New Year",
        },
        {
          start: 10,
          value: 5,
          expected: 2,
          lower: 1,
          upper: 3,
          anomalous: true,
          feedback: false,
          in_detection: true,
          deviations: 4,
          excluded: null,
        },
      ]),
    )!;
    expect(kept.start).toBe(0);
    expect(kept.step).toBe(10);
    expect([...kept.value]).toEqual([NaN, 5]);
    expect([...kept.upper]).toEqual([NaN, 3]);
    expect([...kept.flags]).toEqual([0, ANOMALOUS]);
    expect([...kept.excluded!]).toEqual([[0, "holiday: New Year"]]);
    expect(sameVerdicts(kept, { ...kept, value: Float64Array.from([NaN, 5]) })).toBe(true);
    expect(sameVerdicts(kept, { ...kept, value: Float64Array.from([0, 5]) })).toBe(false);
    expect(sameVerdicts(kept, { ...kept, excluded: new Map([[0, "holiday"]]) })).toBe(false);
    expect(sameVerdicts(kept, { ...kept, excluded: null })).toBe(false);
  });
});
