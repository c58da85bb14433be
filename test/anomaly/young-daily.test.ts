import { describe, expect, it } from "vitest";
import { defaultAnomalySettings } from "../../src/anomaly/defaults.js";
import { scoreSeries } from "../../src/anomaly/score-series.js";
import type { SeriesVerdict } from "../../src/anomaly/types.js";
import { weekOverWeek, weeklyRepeat, youngJudge, type RepeatInput } from "../../src/anomaly/young-daily.js";
import { noise, startsOf } from "./series-fixtures.js";

// Each bucket's week-over-week statistic, as YoungDaily reads it once per bucket.
const repeatAt = (i: number, input: RepeatInput, band: Parameters<typeof weeklyRepeat>[2]) =>
  weeklyRepeat(i, input, band, weekOverWeek(i, input));
const judgeAt = (i: number, input: RepeatInput, rangeSd: number) => youngJudge(weekOverWeek(i, input), rangeSd);

const flagged = (verdict: SeriesVerdict) => verdict.buckets.flatMap((b, i) => (b.anomalous ? [i] : []));

/** A business's daily orders: weekends at `weekend` of the weekdays, 4% noise; day 0 a Monday. */
function b2bDaily(days: number, weekend: number, seed: number): number[] {
  const z = noise(seed);
  return Array.from({ length: days }, (_, i) => Math.round(1000 * (i % 7 >= 5 ? weekend : 1) * (1 + 0.04 * z())));
}

const score = (values: number[]) =>
  scoreSeries(
    { starts: startsOf(values.length, "day"), values },
    { ...defaultAnomalySettings("day"), detection_buckets: values.length },
    "count",
  );

describe("weeklyRepeat", () => {
  const starts = startsOf(21, "day");
  const values = b2bDaily(21, 0.5, 1);
  const usable = new Uint8Array(21).fill(1);
  const input = { values, starts, usable, sensitivity: 2.9 };
  // Day 19, a Saturday, below a band fitted to the week's mix: inner band well above the weekends.
  const band = { side: -1, half: 300, innerLower: 750, innerUpper: 1050 };

  it("a weekend like the two before it repeats them; the interval it returns holds the value", () => {
    const repeat = repeatAt(19, input, band);
    expect(repeat).not.toBeNull();
    expect(repeat!.lower).toBeLessThanOrEqual(values[19]!);
    expect(repeat!.upper).toBeGreaterThanOrEqual(values[19]!);
  });

  it("an outage is no repeat: a weekend at 0 where the weekends before had about 500", () => {
    expect(repeatAt(19, { ...input, values: values.map((v, i) => (i === 19 ? 0 : v)) }, band)).toBeNull();
  });

  it("one week is no pattern: a weekend like last week's only, or with a week missing, or flagged", () => {
    expect(repeatAt(19, { ...input, values: values.map((v, i) => (i === 5 ? 1000 : v)) }, band)).toBeNull();
    expect(repeatAt(19, { ...input, values: values.map((v, i) => (i === 12 ? Number.NaN : v)) }, band)).toBeNull();
    expect(repeatAt(19, { ...input, usable: usable.map((u, i) => (i === 12 ? 0 : u)) }, band)).toBeNull();
  });

  it("a weekday that never left the inner band before is no pattern", () => {
    expect(repeatAt(16, input, { side: 1, half: 300, innerLower: 750, innerUpper: 1050 })).toBeNull();
  });
});

describe("youngJudge", () => {
  const starts = startsOf(21, "day");
  const usable = new Uint8Array(21).fill(1);
  const input = (values: number[]) => ({ values, starts, usable, sensitivity: 2.9 });
  const populationSd = (xs: number[]) => {
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    return Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
  };

  it("a week that does not swing: the z-score; one whose weekends run at 20%: the seasonal band", () => {
    const flat = b2bDaily(21, 1, 4);
    expect(judgeAt(16, input(flat), populationSd(flat.slice(2, 16)))).toBe("z-score");
    const b2b = b2bDaily(21, 0.2, 4);
    expect(judgeAt(16, input(b2b), populationSd(b2b.slice(2, 16)))).toBe("seasonal");
  });

  it("14 days without spread: the seasonal band (a z-score cannot judge); too few week-over-week pairs: the z-score", () => {
    expect(judgeAt(16, input(new Array<number>(21).fill(100)), 0)).toBe("seasonal");
    const flat = b2bDaily(21, 1, 4);
    const gappy = usable.map((u, i) => (i >= 9 && i < 16 ? 0 : u));
    expect(judgeAt(16, { ...input(flat), usable: gappy }, populationSd(flat.slice(2, 16)))).toBe("z-score");
  });
});

describe("scoreSeries: a young daily series", () => {
  it("whose week does not swing is judged by the z-score: a drop on day 16 flagged, its band the z-score's", () => {
    const values = b2bDaily(28, 1, 5);
    values[16] = 700;
    const verdict = score(values);
    expect(flagged(verdict)).toEqual([16]);
    const window = values.slice(2, 16);
    expect(verdict.buckets[16]!.expected).toBeCloseTo(window.reduce((a, b) => a + b, 0) / 14, 6);
  });

  it("flags none of a business's weekends in days 14-20 (50 series, weekends at 50% and 20%)", () => {
    let early = 0;
    for (const weekend of [0.5, 0.2])
      for (let seed = 1; seed <= 25; seed++) early += flagged(score(b2bDaily(35, weekend, seed))).filter((i) => i >= 14 && i < 21).length;
    // Before young-daily.ts: both weekend days of the third week, in every series (100).
    expect(early).toBeLessThanOrEqual(2);
  });

  it("still flags an outage in days 14-20: a weekday at 0, a weekend at 0", () => {
    for (const at of [16, 19]) {
      const values = b2bDaily(28, 0.5, 7);
      values[at] = 0;
      expect(flagged(score(values))).toContain(at);
    }
  });

  it("a sparse count is judged with a count's edges: a 4 after a fortnight of about 1 a day is no incident, 12 is", () => {
    const fortnight = [1, 0, 2, 1, 0, 1, 1, 0, 2, 1, 1, 0, 1, 2];
    expect(flagged(score([...fortnight, 1, 4, 0, 1, 2, 0, 1]))).toEqual([]);
    expect(flagged(score([...fortnight, 1, 12, 0, 1, 2, 0, 1]))).toEqual([15]);
  });

  it("reports a band that holds each weekend it did not flag", () => {
    const verdict = score(b2bDaily(21, 0.5, 3));
    for (const i of [19, 20]) {
      const b = verdict.buckets[i]!;
      expect(b.anomalous).toBe(false);
      expect(b.lower!).toBeLessThanOrEqual(b.value);
      expect(b.upper!).toBeGreaterThanOrEqual(b.value);
    }
  });
});
