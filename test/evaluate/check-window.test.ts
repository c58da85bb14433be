// A check's window scored after the warm-up read before it: what trains, what is kept, and that a
// table younger than its window is scored as the evaluation scores a series (from its first value),
// and what the verdicts keep of the reading without copying it.
import { describe, expect, it } from "vitest";
import { scoreSeries } from "../../src/anomaly/score-series.js";
import { scoreWindow } from "../../src/evaluate/check-window.js";
import { sameVerdicts, toSeriesVerdicts } from "../../src/evaluate/series-verdicts.js";
import { encodeVerdicts } from "../../src/store/anomaly-verdicts.js";
import type { SeriesSettings } from "../../src/infer/types.js";

const DAY_MS = 86_400_000;
const settings: SeriesSettings = {
  grain: "day",
  training_buckets: 28,
  detection_buckets: 2,
  sensitivity: 3,
  seasonality: "none",
  holidays: null,
  exclude: [],
};
const starts = (n: number) => Array.from({ length: n }, (_, i) => Date.UTC(2026, 0, 1) + i * DAY_MS);
// Rows a day, noisy but steady (a fixed pattern, no generator).
const steady = (n: number) => Array.from({ length: n }, (_, i) => 1000 + ((i * 37) % 23) * 4 - 44);

describe("scoreWindow", () => {
  it("keeps the window (training + detection) and judges it from its first bucket, trained by the warm-up", () => {
    const values = steady(58); // warm-up 28 + window 30
    const { verdict, warm_up } = scoreWindow(starts(58), values, settings, "count");
    expect(verdict.buckets).toHaveLength(30);
    expect(verdict.buckets[0]!.start).toBe(starts(58)[28]);
    expect([...warm_up]).toEqual(values.slice(0, 28));
    // Every bucket of the window has a band; the window scored alone has none for its first weeks.
    expect(verdict.buckets.every((b) => b.expected !== null)).toBe(true);
    const alone = scoreSeries({ starts: starts(58).slice(28), values: values.slice(28) }, settings, "count");
    expect(alone.buckets[0]!.expected).toBeNull();
    expect(verdict.buckets.filter((b) => b.in_detection).map((b) => b.start)).toEqual(starts(58).slice(56));
  });

  it("keeps the warm-up and the window's values of a scan's reading as views on it, not second copies", () => {
    const read = Float64Array.from(steady(70)); // a cached reading reaches further back than one check
    read[65] = NaN; // a bucket without a value
    const scored = scoreWindow(starts(70), read, settings, "count");
    expect(scored.warm_up.buffer).toBe(read.buffer);
    expect([...scored.warm_up]).toEqual([...read.subarray(12, 40)]);
    const kept = toSeriesVerdicts("k", scored.verdict, scored.warm_up, scored.read)!;
    expect(kept.value.buffer).toBe(read.buffer);
    expect([...kept.value]).toEqual([...read.subarray(40)]);
    // The same verdicts as from copies, and the same text for the store.
    const copied = toSeriesVerdicts("k", scored.verdict, Float64Array.from(scored.warm_up))!;
    expect(copied.value.buffer).not.toBe(read.buffer);
    expect(sameVerdicts(kept, copied)).toBe(true);
    expect(encodeVerdicts(kept)).toBe(encodeVerdicts(copied));
  });

  it("copies the values when the read is not the buckets' values", () => {
    const scored = scoreWindow(starts(58), Float64Array.from(steady(58)), settings, "count");
    const other = Float64Array.from(scored.read, (v) => v + 1);
    const kept = toSeriesVerdicts("k", scored.verdict, scored.warm_up, other)!;
    expect(kept.value.buffer).not.toBe(other.buffer);
    expect([...kept.value]).toEqual(scored.verdict.buckets.map((b) => b.value));
  });

  it("reads at most one warm-up window: older buckets do not change the verdicts", () => {
    const values = steady(90);
    const all = scoreWindow(starts(90), values, settings, "count");
    const last58 = scoreWindow(starts(90).slice(32), values.slice(32), settings, "count");
    expect(all).toEqual(last58);
  });

  it("a segment's series reads no warm-up: the window is scored alone", () => {
    const values = steady(58);
    const segment = scoreWindow(starts(58), values, settings, "count", undefined, true);
    const alone = scoreSeries({ starts: starts(58).slice(28), values: values.slice(28) }, settings, "count");
    expect(segment.warm_up).toHaveLength(0);
    expect(segment.verdict).toEqual(alone);
  });

  it("scores a table younger than its window from its first value, as the evaluation scores the series", () => {
    const values = [...Array<number>(40).fill(Number.NaN), ...steady(18)];
    values[57] = 200; // a drop on the last day
    const { verdict, warm_up } = scoreWindow(starts(58), values, settings, "count");
    expect(warm_up).toHaveLength(0);
    expect(verdict.buckets).toHaveLength(30);
    // The window's buckets before the first row are kept, unscored.
    expect(verdict.buckets.slice(0, 12).every((b) => Number.isNaN(b.value) && b.expected === null && !b.anomalous)).toBe(true);
    const evaluation = scoreSeries({ starts: starts(58).slice(40), values: values.slice(40) }, settings, "count");
    expect(verdict.buckets.slice(12)).toEqual(evaluation.buckets);
    expect(verdict.buckets.at(-1)!.anomalous).toBe(true);
    expect(verdict.anomalous).toBe(evaluation.anomalous);
  });

  it("marks the window's holidays and exclusions, scored or not", () => {
    const values = [...Array<number>(30).fill(Number.NaN), ...steady(28)];
    const excluding = { ...settings, exclude: [{ from: "2026-01-29T00:00:00Z", to: "2026-02-02T00:00:00Z", reason: "migration" }] };
    const { verdict } = scoreWindow(starts(58), values, excluding, "count");
    const marked = verdict.buckets.filter((b) => b.excluded === "migration").map((b) => new Date(b.start).toISOString().slice(0, 10));
    // Jan 29 and 30 are before the first value (unscored), Jan 31 and Feb 1 are scored.
    expect(marked).toEqual(["2026-01-29", "2026-01-30", "2026-01-31", "2026-02-01"]);
    expect(verdict.buckets.filter((b) => b.excluded !== null).every((b) => !b.anomalous)).toBe(true);
  });

  it("keeps only the level shifts within the window", () => {
    const values = steady(58).map((v, i) => (i >= 18 ? v * 2 : v));
    const scored = scoreSeries({ starts: starts(58), values }, settings, "count");
    const { verdict } = scoreWindow(starts(58), values, settings, "count");
    // The doubling on day 18 is re-learnt in the warm-up: the chart's window shows no shift.
    expect(scored.level_shifts.length).toBeGreaterThan(0);
    expect(scored.level_shifts.every((s) => s < starts(58)[28]!)).toBe(true);
    expect(verdict.level_shifts).toEqual([]);
    expect(verdict.level_shift_at).toBeNull();
  });
});
