import { describe, expect, it } from "vitest";
import { defaultAnomalySettings } from "../../src/anomaly/defaults.js";
import { scoreSeries } from "../../src/anomaly/score-series.js";
import { hourlyOrders, noise, startsOf } from "./series-fixtures.js";

const settings = (n: number) => ({ ...defaultAnomalySettings("hour"), detection_buckets: n });

/** Mean + 3 population sds of the 336 values before bucket i (the z-score's edge). */
function zEdge(values: readonly number[], i: number): number {
  const window = values.slice(Math.max(0, i - 336), i);
  const mean = window.reduce((a, b) => a + b, 0) / window.length;
  const sd = Math.sqrt(window.reduce((a, b) => a + (b - mean) ** 2, 0) / window.length);
  return mean + 3 * sd;
}

/** Hourly orders whose errors come in bursts: most hours 3% noise, now and then a spell 20-60% high. */
function burstyOrders(days: number, seed: number): number[] {
  const z = noise(seed);
  const base = hourlyOrders(days, seed);
  let spell = 0;
  return base.map((v) => {
    const u = (z() + 4) / 8;
    if (spell === 0 && u > 0.73) spell = 1 + Math.floor(3 * ((z() + 4) / 8));
    if (spell > 0) {
      spell--;
      return Math.round(v * (1.2 + 0.4 * Math.abs(z()) * 0.5));
    }
    return v;
  });
}

describe("scoreSeries: the second opinion for lone upward hourly exceedances", () => {
  it("keeps a near-normal series' lone night spike flagged though it is within the z-score's edge", () => {
    const values = hourlyOrders(28);
    const i = 27 * 24 + 3; // 03:00, a quiet hour
    values[i] = values[i]! * 2;
    expect(values[i]).toBeLessThan(zEdge(values, i));
    const verdict = scoreSeries({ starts: startsOf(values.length, "hour"), values }, settings(values.length), "count");
    expect(verdict.buckets[i]!.anomalous).toBe(true);
  });

  it("flags a bursty series' lone upward hour only beyond the z-score's edge, inside the band it reports", () => {
    const values = burstyOrders(42, 7);
    const quiet = hourlyOrders(42, 7);
    // A night hour at three times its level: out of its seasonal band, within what two weeks held.
    const night = 41 * 24 + 3;
    for (let j = night - 2; j <= night + 2; j++) values[j] = quiet[j]!;
    values[night] = quiet[night]! * 3;
    expect(values[night]).toBeLessThan(zEdge(values, night));
    const verdict = scoreSeries({ starts: startsOf(values.length, "hour"), values }, settings(values.length), "count");
    const b = verdict.buckets;
    let lone = 0;
    let vetoed = 0;
    for (let i = 1; i < b.length - 1; i++) {
      const { value, expected, upper, anomalous } = b[i]!;
      if (expected === null || upper === null) continue;
      if (anomalous && !b[i - 1]!.anomalous && !b[i + 1]!.anomalous && value > expected) {
        lone++;
        expect(value).toBeGreaterThan(zEdge(values, i));
      }
      if (!anomalous) {
        expect(value).toBeLessThanOrEqual(upper);
        if (upper >= zEdge(values, i) - 1e-6 && value > expected) vetoed++;
      }
    }
    expect(lone).toBeGreaterThan(0);
    expect(vetoed).toBeGreaterThan(0);
    expect(b[night]!.anomalous).toBe(false);
    expect(b[night]!.upper).toBeGreaterThanOrEqual(values[night]);
  });
});
