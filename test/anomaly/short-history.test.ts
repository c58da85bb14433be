import { describe, expect, it } from "vitest";
import { defaultAnomalySettings } from "../../src/anomaly/defaults.js";
import { RangeCheck } from "../../src/anomaly/range-check.js";
import { scoreSeries } from "../../src/anomaly/score-series.js";
import { zScoreSds } from "../../src/anomaly/young-daily.js";
import type { AnomalySettings, Grain, SeriesVerdict } from "../../src/anomaly/types.js";
import { hourlyOrders, noise, startsOf } from "./series-fixtures.js";

const settings = (grain: Grain, detection: number): AnomalySettings => ({ ...defaultAnomalySettings(grain), detection_buckets: detection });
const flagged = (verdict: SeriesVerdict) => verdict.buckets.flatMap((b, i) => (b.anomalous ? [i] : []));

/** Daily values around 1000 with 3% noise, no weekly cycle. */
function flatDaily(days: number, seed = 3): number[] {
  const z = noise(seed);
  return Array.from({ length: days }, () => 1000 * (1 + 0.03 * z()));
}

/** Hourly values with a daily cycle and AR(1) residuals (rho 0.8, 4% innovations, log scale). */
function autocorrelatedHourly(days: number, seed = 5, rho = 0.8): number[] {
  const z = noise(seed);
  let e = 0;
  return Array.from({ length: days * 24 }, (_, i) => {
    e = rho * e + 0.04 * z();
    const profile = 0.3 + Math.exp(-(((i % 24) - 14) ** 2) / 18);
    return 500 * profile * Math.exp(e);
  });
}

describe("scoreSeries: judged from day 14", () => {
  it("judges a daily series on its fifteenth day (14 days of history) and flags a clear drop there", () => {
    const values = flatDaily(15);
    const quiet = scoreSeries({ starts: startsOf(15, "day"), values }, settings("day", 1), "value");
    expect(quiet.kind).toBe("scored");
    expect(quiet.scored).toBe(1);
    expect(quiet.anomalous).toBe(0);
    // Before its weekday effect can be tested, a series whose week does not swing is judged by the
    // z-score of its last 14 values, widened for so few (young-daily.ts): 3.68 sds, not the peers' 3.
    const first = values.slice(0, 14);
    const mean = first.reduce((a, b) => a + b, 0) / 14;
    const sd = Math.sqrt(first.reduce((a, b) => a + (b - mean) ** 2, 0) / 14);
    expect(zScoreSds(14)).toBeCloseTo(3.68, 2);
    expect(quiet.buckets[14]).toMatchObject({
      lower: expect.closeTo(mean - zScoreSds(14) * sd, 6),
      upper: expect.closeTo(mean + zScoreSds(14) * sd, 6),
    });
    const dropped = values.slice();
    dropped[14] = 500;
    const verdict = scoreSeries({ starts: startsOf(15, "day"), values: dropped }, settings("day", 1), "value");
    expect(flagged(verdict)).toEqual([14]);
  });

  it("judges nothing with less history: 14 daily buckets give insufficient_history", () => {
    const verdict = scoreSeries({ starts: startsOf(14, "day"), values: flatDaily(14) }, settings("day", 1), "value");
    expect(verdict.kind).toBe("insufficient_history");
  });

  it("judges an hourly series with 14 days of history", () => {
    const values = hourlyOrders(15);
    const verdict = scoreSeries({ starts: startsOf(values.length, "hour"), values }, settings("hour", 24), "count");
    expect(verdict).toMatchObject({ kind: "scored", scored: 24, anomalous: 0 });
  });
});

describe("scoreSeries: real-like residuals", () => {
  it("does not alarm on autocorrelated noise, and flags a clear drop in it", () => {
    const values = autocorrelatedHourly(42);
    const starts = startsOf(values.length, "hour");
    const detection = 24 * 28;
    const quiet = scoreSeries({ starts, values }, settings("hour", detection), "value");
    // Four weeks of hours: at most one alarm episode (an independent-noise band would give several).
    const episodes = flagged(quiet).filter((i, k, all) => k === 0 || all[k - 1] !== i - 1);
    expect(episodes.length).toBeLessThanOrEqual(1);
    const hit = values.slice();
    const at = values.length - 24 * 3 + 14;
    for (let i = at; i < at + 3; i++) hit[i] = hit[i]! * 0.3;
    const verdict = scoreSeries({ starts, values: hit }, settings("hour", detection), "value");
    expect(flagged(verdict)).toEqual(expect.arrayContaining([at, at + 1, at + 2]));
  });

  it("uses only the past: a prefix of a series gets the same verdicts as the whole series", () => {
    const values = autocorrelatedHourly(30, 9);
    values[24 * 20 + 3] = values[24 * 20 + 3]! * 4;
    const starts = startsOf(values.length, "hour");
    const whole = scoreSeries({ starts, values }, settings("hour", values.length), "value");
    const cut = 24 * 22;
    const prefix = scoreSeries({ starts: starts.slice(0, cut), values: values.slice(0, cut) }, settings("hour", values.length), "value");
    expect(prefix.buckets).toEqual(whole.buckets.slice(0, cut));
  });
});

describe("RangeCheck", () => {
  it("judges against the mean and population sd of the 14 days before, restarting after a level shift", () => {
    const values = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 90 : 110));
    const range = new RangeCheck(values, "day");
    // Days 0..13: mean 100, population sd 10; 4.5 sds out is beyond 145.
    expect(range.judge(14, 140, false)).toBe(0);
    expect(range.upper).toBeCloseTo(145, 9);
    expect(range.judge(15, 146, false)).toBe(1);
    expect(range.judge(16, 54, false)).toBe(-1);
    range.restart(20);
    // Fewer than half of the 14 days since the restart: no judgement.
    expect(range.judge(25, 1000, false)).toBe(0);
    expect(range.judge(30, 1000, false)).toBe(1);
  });
});
