import { describe, expect, it } from "vitest";
import { defaultAnomalySettings } from "../../src/anomaly/defaults.js";
import { PAIR_RATIO } from "../../src/anomaly/pair-rule.js";
import { scoreSeries } from "../../src/anomaly/score-series.js";
import type { AnomalySettings, SeriesVerdict } from "../../src/anomaly/types.js";
import { dailyRevenue, hourlyOrders, noise, startsOf } from "./series-fixtures.js";

const hour = (detection: number, extra: Partial<AnomalySettings> = {}): AnomalySettings => ({
  ...defaultAnomalySettings("hour"),
  detection_buckets: detection,
  ...extra,
});
const day = (detection: number, extra: Partial<AnomalySettings> = {}): AnomalySettings => ({
  ...defaultAnomalySettings("day"),
  detection_buckets: detection,
  ...extra,
});
const flagged = (verdict: SeriesVerdict) => verdict.buckets.flatMap((b, i) => (b.anomalous ? [i] : []));
/** Flags after the first three weeks: a daily series' weekday effect is only tested from day 21. */
const flaggedAfter = (verdict: SeriesVerdict, from = 21) => flagged(verdict).filter((i) => i >= from);

describe("scoreSeries: shapes and corner cases", () => {
  it("returns insufficient_history with no buckets for an empty series", () => {
    const verdict = scoreSeries({ starts: [], values: [] }, hour(24), "count");
    expect(verdict).toMatchObject({ kind: "insufficient_history", buckets: [], scored: 0, anomalous: 0, level_shift_at: null });
  });

  it("returns every bucket with null bands when the history is shorter than min_history", () => {
    const values = hourlyOrders(2);
    const verdict = scoreSeries({ starts: startsOf(48, "hour"), values }, hour(24), "count");
    expect(verdict.kind).toBe("insufficient_history");
    expect(verdict.buckets).toHaveLength(48);
    expect(verdict.buckets.every((b) => b.expected === null && b.lower === null && !b.anomalous)).toBe(true);
    expect(verdict.buckets.filter((b) => b.in_detection)).toHaveLength(24);
  });

  it("scores one bucket after enough history, and draws the band over the earlier span too", () => {
    const values = hourlyOrders(21);
    const verdict = scoreSeries({ starts: startsOf(values.length, "hour"), values }, hour(1), "count");
    expect(verdict).toMatchObject({ kind: "scored", scored: 1, anomalous: 0 });
    // Weekly at hour grain: one of each weekday, then 48 one-step errors to calibrate the band.
    const banded = verdict.buckets.filter((b) => b.expected !== null);
    expect(banded.length).toBeGreaterThan(values.length - 24 * 7 - 48 - 24);
    expect(banded.length).toBeLessThanOrEqual(values.length - 24 * 7 - 48);
    expect(verdict.buckets[values.length - 1]!.in_detection).toBe(true);
    for (const b of banded) expect(b.lower!).toBeLessThanOrEqual(b.upper!);
  });

  it("treats non-finite values as missing: no verdict, not used", () => {
    const values = hourlyOrders(21);
    values[400] = Number.NaN;
    const verdict = scoreSeries({ starts: startsOf(values.length, "hour"), values }, hour(200), "count");
    expect(verdict.buckets[400]).toMatchObject({ expected: null, deviations: null, anomalous: false });
    expect(verdict.anomalous).toBe(0);
  });

  it("never flags an all-zero count series, and flags a burst of rows in it", () => {
    const values = new Array<number>(24 * 14).fill(0);
    const quiet = scoreSeries({ starts: startsOf(values.length, "hour"), values }, hour(100), "count");
    expect(quiet).toMatchObject({ kind: "scored", anomalous: 0 });
    values[values.length - 5] = 40;
    const burst = scoreSeries({ starts: startsOf(values.length, "hour"), values }, hour(100), "count");
    expect(flagged(burst)).toEqual([values.length - 5]);
  });

  it("flags a value that never moved when it moves (MAD = 0), and not before", () => {
    const values = new Array<number>(70).fill(19.99);
    expect(scoreSeries({ starts: startsOf(70, "day"), values }, day(30), "value").anomalous).toBe(0);
    values[65] = 24.99;
    const verdict = scoreSeries({ starts: startsOf(70, "day"), values }, day(30), "value");
    expect(flagged(verdict)).toEqual([65]);
  });
});

describe("scoreSeries: the method", () => {
  it("finds a spike and a drop in seasonal hourly counts, and nothing else", () => {
    const values = hourlyOrders(28);
    const spike = 24 * 24 + 14;
    const drop = 24 * 26 + 11;
    values[spike] = Math.round(values[spike]! * 1.5);
    values[drop] = Math.round(values[drop]! * 0.5);
    const verdict = scoreSeries({ starts: startsOf(values.length, "hour"), values }, hour(24 * 7), "count");
    expect(verdict.seasonality).toBe("weekly");
    expect(flagged(verdict)).toEqual([spike, drop]);
    expect(verdict.buckets[spike]!.deviations!).toBeGreaterThan(4);
    expect(verdict.buckets[drop]!.deviations!).toBeLessThan(-4);
  });

  it("flags two buckets in a row beyond the inner band on one side, but not one alone, and reports the inner band for them", () => {
    const values = hourlyOrders(28);
    const starts = startsOf(values.length, "hour");
    const settings = hour(24 * 7);
    const t = 24 * 24 + 10;
    // Each bucket 85% of the way to its band's lower edge: inside the band, beyond the inner one.
    const plant = (series: number[], i: number) => {
      const b = scoreSeries({ starts, values: series }, settings, "count").buckets[i]!;
      series[i] = b.expected! - 0.85 * (b.expected! - b.lower!);
    };
    const single = values.slice();
    plant(single, t);
    expect(flagged(scoreSeries({ starts, values: single }, settings, "count"))).toEqual([]);
    const pair = single.slice();
    plant(pair, t + 1);
    const verdict = scoreSeries({ starts, values: pair }, settings, "count");
    expect(flagged(verdict)).toEqual([t, t + 1]);
    for (const i of [t, t + 1]) {
      const b = verdict.buckets[i]!;
      expect(b.value).toBeLessThan(b.lower!);
      expect(b.deviations!).toBeGreaterThan(-settings.sensitivity);
      expect(b.deviations!).toBeLessThan(-PAIR_RATIO * settings.sensitivity);
    }
    // Feedback on the second bucket: it is expected, so there is no pair; both keep the full band.
    const confirmed = scoreSeries({ starts, values: pair, expected_starts: new Set([starts[t + 1]!]) }, settings, "count");
    expect(flagged(confirmed)).toEqual([]);
    for (const i of [t, t + 1]) expect(confirmed.buckets[i]!.value).toBeGreaterThan(confirmed.buckets[i]!.lower!);
  });

  it("keeps a flagged bucket out of training: the band after an incident is as narrow as without it", () => {
    const values = hourlyOrders(28);
    const clean = scoreSeries({ starts: startsOf(values.length, "hour"), values }, hour(24 * 7), "count");
    const hit = values.slice();
    for (let i = 24 * 22; i < 24 * 22 + 3; i++) hit[i] = hit[i]! * 10;
    const incident = scoreSeries({ starts: startsOf(values.length, "hour"), values: hit }, hour(24 * 7), "count");
    const last = values.length - 10;
    const width = (v: SeriesVerdict) => v.buckets[last]!.upper! - v.buckets[last]!.lower!;
    expect(flagged(incident)).toEqual([24 * 22, 24 * 22 + 1, 24 * 22 + 2]);
    // The incident's errors count capped at the band's edge: the tail quantile moves a little.
    expect(width(incident) / width(clean)).toBeLessThan(1.1);
  });

  it("re-learns a level shift that persists instead of alarming forever", () => {
    const values = dailyRevenue(120);
    for (let i = 90; i < 120; i++) values[i] = values[i]! * 1.6;
    const verdict = scoreSeries({ starts: startsOf(120, "day"), values }, day(40), "value");
    const relearn = defaultAnomalySettings("day").relearn_buckets;
    expect(verdict.level_shift_at).toBe(startsOf(120, "day")[90]);
    expect(flaggedAfter(verdict)).toEqual(Array.from({ length: relearn }, (_, k) => 90 + k));
  });

  it("re-learns at once when feedback confirms the shift's first bucket", () => {
    const values = dailyRevenue(120);
    for (let i = 90; i < 120; i++) values[i] = values[i]! * 1.6;
    const starts = startsOf(120, "day");
    const verdict = scoreSeries({ starts, values, expected_starts: new Set([starts[90]!]) }, day(40), "value");
    expect(verdict.buckets[90]).toMatchObject({ feedback: true, anomalous: false });
    expect(flaggedAfter(verdict)).toEqual([91]);
    expect(verdict.level_shift_at).toBe(starts[90]);
  });

  it("never re-learns counts stuck at 0 (an outage) unless feedback says so", () => {
    const values = hourlyOrders(21);
    for (let i = 24 * 19; i < values.length; i++) values[i] = 0;
    const verdict = scoreSeries({ starts: startsOf(values.length, "hour"), values }, hour(48), "count");
    expect(verdict.level_shift_at).toBeNull();
    expect(verdict.anomalous).toBe(48);
  });

  it("never flags a feedback bucket and trains on it", () => {
    const values = dailyRevenue(90);
    values[80] = values[80]! * 3;
    const starts = startsOf(90, "day");
    const without = scoreSeries({ starts, values }, day(20), "value");
    expect(flaggedAfter(without)).toEqual([80]);
    const withFeedback = scoreSeries({ starts, values, expected_starts: new Set([starts[80]!]) }, day(20), "value");
    expect(withFeedback.buckets[80]).toMatchObject({ anomalous: false, feedback: true });
    expect(flaggedAfter(withFeedback)).toEqual([]);
    expect(withFeedback.anomalous).toBe(0);
  });

  it("uses the seasonality it is given, and none for daily seasonality at day grain", () => {
    const values = dailyRevenue(90);
    const starts = startsOf(90, "day");
    expect(scoreSeries({ starts, values }, day(20), "value").seasonality).toBe("weekly");
    expect(scoreSeries({ starts, values }, day(20, { seasonality: "daily" }), "value").seasonality).toBe("none");
    // Without the weekly term the weekends land in the prediction errors: seasonality is what keeps the band tight.
    const width = (v: SeriesVerdict) => v.buckets[85]!.upper! - v.buckets[85]!.lower!;
    const none = scoreSeries({ starts, values }, day(20, { seasonality: "none" }), "value");
    const weekly = scoreSeries({ starts, values }, day(20, { seasonality: "weekly" }), "value");
    expect(width(none) / width(weekly)).toBeGreaterThan(3);
    expect(weekly.anomalous).toBe(0);
  });

  it("flags sparse counts only for counts the Poisson tail makes unlikely", () => {
    const z = noise(7);
    // Poisson(2) by inversion from the same generator
    const values = Array.from({ length: 24 * 21 }, () => poisson(2, z));
    // At 4 sds the Poisson(2) tail is past 10 (P < 1e-4 a bucket): none of 168 independent hours
    // reaches it, and 25 is far beyond it.
    const settings = hour(24 * 7, { sensitivity: 4 });
    const quiet = scoreSeries({ starts: startsOf(values.length, "hour"), values }, settings, "count");
    expect(quiet.anomalous).toBe(0);
    values[values.length - 3] = 25;
    expect(flagged(scoreSeries({ starts: startsOf(values.length, "hour"), values }, settings, "count"))).toEqual([values.length - 3]);
  });
});

function poisson(mean: number, z: () => number): number {
  // Normal draws turned into uniforms, then Knuth's product method.
  const uniform = () => 0.5 * (1 + Math.tanh(z() * 0.7978845608));
  const limit = Math.exp(-mean);
  let k = 0;
  let product = uniform();
  while (product > limit) {
    k++;
    product *= uniform();
  }
  return k;
}
