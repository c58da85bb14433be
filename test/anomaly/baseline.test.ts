import { describe, expect, it } from "vitest";
import { calendarOf } from "../../src/anomaly/calendar.js";
import { chooseSeasonality, seasonalThreshold } from "../../src/anomaly/choose-seasonality.js";
import { LevelSmoother } from "../../src/anomaly/level-smoother.js";
import { createWorkspace, fitBaseline } from "../../src/anomaly/seasonal-baseline.js";
import { fitSpaceOf, fromFitSpace, toFitSpace } from "../../src/anomaly/transform.js";
import { noise, startsOf } from "./series-fixtures.js";

const hourly = (days: number, daily: number, weekend: number, sd: number, seed = 3) => {
  const z = noise(seed);
  return Float64Array.from(
    { length: days * 24 },
    (_, i) => 5 + daily * Math.sin((2 * Math.PI * (i % 24)) / 24) + (Math.floor(i / 24) % 7 >= 5 ? weekend : 0) + sd * z(),
  );
};
const daily = (days: number, weekend: number, sd: number, seed = 4) => {
  const z = noise(seed);
  return Float64Array.from({ length: days }, (_, i) => 10 + (i % 7 >= 5 ? weekend : 0) + sd * z());
};

describe("calendarOf", () => {
  it("gives UTC hour of day, Monday-based weekday and the row (day, or week at day grain)", () => {
    const cal = calendarOf([Date.UTC(2024, 0, 1, 0), Date.UTC(2024, 0, 6, 23), Date.UTC(2024, 0, 7, 12)], "hour");
    expect(Array.from(cal.hourOfDay)).toEqual([0, 23, 12]);
    expect(Array.from(cal.dayOfWeek)).toEqual([0, 5, 6]); // Monday, Saturday, Sunday
    const week = calendarOf([Date.UTC(2024, 0, 1), Date.UTC(2024, 0, 7), Date.UTC(2024, 0, 8)], "day").row;
    expect(week[0]).toBe(week[1]);
    expect(week[2]).toBe(week[0]! + 1);
  });
});

describe("chooseSeasonality", () => {
  it("picks daily for an hour-of-day cycle, weekly when weekends differ too, none for noise alone", () => {
    const cal = calendarOf(startsOf(28 * 24, "hour"), "hour");
    expect(chooseSeasonality(hourly(28, 1, 0, 0.2), cal, "hour", 336).chosen).toBe("daily");
    expect(chooseSeasonality(hourly(28, 1, -1, 0.2), cal, "hour", 336).chosen).toBe("weekly");
    expect(chooseSeasonality(hourly(28, 0, 0, 0.2), cal, "hour", 336).chosen).toBe("none");
  });

  it("never picks weekly hourly when the training window cannot hold two weeks", () => {
    const cal = calendarOf(startsOf(28 * 24, "hour"), "hour");
    expect(chooseSeasonality(hourly(28, 1, -1, 0.2), cal, "hour", 7 * 24).chosen).toBe("daily");
  });

  it("at day grain, picks weekly for a weekday cycle and none for noise, and needs three weeks", () => {
    const cal = calendarOf(startsOf(70, "day"), "day");
    expect(chooseSeasonality(daily(70, -3, 0.5), cal, "day", 56).chosen).toBe("weekly");
    expect(chooseSeasonality(daily(70, 0, 0.5), cal, "day", 56).chosen).toBe("none");
    const short = calendarOf(startsOf(20, "day"), "day");
    expect(chooseSeasonality(daily(20, -3, 0.5), short, "day", 56).chosen).toBe("none");
  });

  it("keeps a term the series has while its statistic stays above df, and admits one only past the threshold", () => {
    const cal = calendarOf(startsOf(70, "day"), "day");
    // A weak weekend dip: evidence between the chi-square mean (6) and the threshold.
    const weak = daily(70, -0.25, 0.5);
    const evidence = chooseSeasonality(weak, cal, "day", 56);
    expect(evidence.weekly).toBeGreaterThan(6);
    expect(evidence.weekly).toBeLessThan(seasonalThreshold(6));
    expect(evidence.chosen).toBe("none");
    expect(chooseSeasonality(weak, cal, "day", 56, "weekly").chosen).toBe("weekly");
    // Gone: the term is dropped even by a series that had it.
    const flat = daily(70, 0, 0.5, 1);
    expect(chooseSeasonality(flat, cal, "day", 56, "weekly").weekly).toBeLessThan(6);
    expect(chooseSeasonality(flat, cal, "day", 56, "weekly").chosen).toBe("none");
  });

  it("uses a threshold above the chi-square mean: 2·df, or df + 4·sqrt(2·df) when larger", () => {
    expect(seasonalThreshold(6)).toBeCloseTo(6 + 4 * Math.sqrt(12), 12);
    expect(seasonalThreshold(23)).toBeCloseTo(23 + 4 * Math.sqrt(46), 12);
    expect(seasonalThreshold(100)).toBe(200);
  });
});

describe("fitBaseline", () => {
  it("recovers hour-of-day and weekday effects and a trend, unmoved by a flagged incident", () => {
    const n = 14 * 24;
    const y = Float64Array.from(
      { length: n },
      (_, i) => 3 + 0.001 * i + Math.sin((2 * Math.PI * (i % 24)) / 24) + (Math.floor(i / 24) % 7 === 6 ? -0.5 : 0),
    );
    const usable = new Uint8Array(n).fill(1);
    for (let i = 100; i < 106; i++) {
      y[i] = 50;
      usable[i] = 0;
    }
    const calendar = calendarOf(startsOf(n, "hour"), "hour");
    const fit = fitBaseline({ y, usable, calendar, grain: "hour", from: 0, to: n }, "weekly", createWorkspace(n));
    expect(fit.mode).toBe("weekly");
    expect(fit.hourOfDay[6]! - fit.hourOfDay[18]!).toBeCloseTo(2, 1);
    expect(fit.dayOfWeek[6]! - fit.dayOfWeek[2]!).toBeCloseTo(-0.5, 1);
    expect(fit.slope).toBeCloseTo(0.001, 4);
  });

  it("at day grain keeps a trend out of the weekday effects (week levels interpolated between the weeks' centres)", () => {
    // 1% a day and weekends 20% / 30% down, on a log scale; 12 weeks. Off each week's median a
    // Monday would read 3% low and a Friday 1% high; off the interpolated levels they are exact.
    const n = 84;
    const weekend = [0, 0, 0, 0, 0, Math.log(0.8), Math.log(0.7)];
    const y = Float64Array.from({ length: n }, (_, i) => 5 + 0.01 * i + weekend[i % 7]!);
    const calendar = calendarOf(startsOf(n, "day"), "day");
    const fit = fitBaseline({ y, usable: new Uint8Array(n).fill(1), calendar, grain: "day", from: 0, to: n }, "weekly", createWorkspace(n));
    expect(fit.mode).toBe("weekly");
    for (let d = 1; d < 5; d++) expect(fit.dayOfWeek[d]! - fit.dayOfWeek[0]!).toBeCloseTo(0, 9);
    expect(fit.dayOfWeek[5]! - fit.dayOfWeek[0]!).toBeCloseTo(Math.log(0.8), 9);
    expect(fit.dayOfWeek[6]! - fit.dayOfWeek[0]!).toBeCloseTo(Math.log(0.7), 9);
    expect(fit.slope).toBeCloseTo(0.01, 9);
  });

  it("falls back to a simpler term when the window cannot carry the one asked for", () => {
    const y = Float64Array.from({ length: 3 * 24 }, (_, i) => Math.sin(i));
    const fit = fitBaseline(
      { y, usable: new Uint8Array(72).fill(1), calendar: calendarOf(startsOf(72, "hour"), "hour"), grain: "hour", from: 0, to: 72 },
      "weekly",
      createWorkspace(72),
    );
    expect(fit.mode).toBe("daily");
    const empty = fitBaseline(
      { y, usable: new Uint8Array(72), calendar: calendarOf(startsOf(72, "hour"), "hour"), grain: "hour", from: 0, to: 72 },
      "daily",
      createWorkspace(72),
    );
    expect(empty).toMatchObject({ mode: "none", slope: 0 });
  });
});

describe("LevelSmoother", () => {
  it("holds a constant level and clips an unflagged outlier's pull", () => {
    const smoother = new LevelSmoother([{ alpha: 0.5, ownTrend: false }], 10);
    smoother.start(10, 0);
    for (let k = 0; k < 5; k++) smoother.advance(10, 0, 1);
    expect(smoother.predict(0)).toBe(10);
    smoother.advance(1000, 0, 1);
    expect(smoother.predict(0)).toBe(10.5);
  });

  it("lets the candidate with the smallest recent error predict: a fast one for a random walk, a slow one for noise", () => {
    const candidates = [
      { alpha: 0.05, ownTrend: false },
      { alpha: 0.8, ownTrend: false },
    ];
    const z = noise(9);
    const walk = new LevelSmoother(candidates, 200);
    const flat = new LevelSmoother(candidates, 200);
    walk.start(0, 0);
    flat.start(0, 0);
    let level = 0;
    for (let k = 0; k < 200; k++) {
      level += z();
      walk.advance(level, 0, Infinity);
      flat.advance(z(), 0, Infinity);
    }
    walk.choose();
    flat.choose();
    walk.advance(level, 0, Infinity);
    expect(Math.abs(walk.predict(0) - level)).toBeLessThan(1);
    expect(Math.abs(flat.predict(0))).toBeLessThan(0.5);
  });

  it("follows a trend with Brown's own slope, and a re-learnt shift moves it", () => {
    const smoother = new LevelSmoother([{ alpha: 0.3, ownTrend: true }], 50);
    smoother.start(0, 0);
    for (let k = 1; k <= 60; k++) smoother.advance(2 * k, 0, Infinity);
    expect(smoother.predict(0)).toBeCloseTo(122, 0);
    smoother.shift(-100);
    expect(smoother.predict(0)).toBeCloseTo(22, 0);
  });
});

describe("fit space", () => {
  it("fits counts on log1p, positive values on log, signed values as they are", () => {
    expect(fitSpaceOf([0, 3, 5], "count")).toEqual({ log: true, offset: 1, counts: true });
    expect(fitSpaceOf([2, 3, 5], "value")).toEqual({ log: true, offset: 0, counts: false });
    expect(fitSpaceOf([-2, 3, 5], "value")).toEqual({ log: false, offset: 0, counts: false });
    expect(fitSpaceOf([-2, 3, 5], "count")).toEqual({ log: false, offset: 0, counts: false });
  });

  it("keeps a positive value series with a few zeros (a missing load) on the log scale, offset by 1% of its median", () => {
    const values = Array.from({ length: 100 }, (_, i) => (i === 50 ? 0 : 100 + (i % 10)));
    const space = fitSpaceOf(values, "value");
    expect(space).toEqual({ log: true, offset: 1.05, counts: false });
    // The zero reads as a drop of log(105 / 1.05) ≈ 4.6 on the log scale, and maps back to 0.
    expect(toFitSpace(space, 105) - toFitSpace(space, 0)).toBeCloseTo(Math.log(105 / 1.05) + Math.log(1 + 1.05 / 105), 12);
    expect(fromFitSpace(space, toFitSpace(space, 0))).toBeCloseTo(0, 12);
    expect(fromFitSpace(space, toFitSpace(space, 123.4))).toBeCloseTo(123.4, 10);
    // More than 5% zeros: a sparse sum, fitted as it is.
    const sparse = values.map((v, i) => (i % 10 === 0 ? 0 : v));
    expect(fitSpaceOf(sparse, "value")).toEqual({ log: false, offset: 0, counts: false });
  });
});
