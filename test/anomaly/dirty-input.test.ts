import { describe, expect, it } from "vitest";
import { defaultAnomalySettings, resolveSettings } from "../../src/anomaly/defaults.js";
import { scoreSeries } from "../../src/anomaly/score-series.js";
import { dailyRevenue, hourlyOrders, startsOf } from "./series-fixtures.js";

describe("scoreSeries on dirty input", () => {
  it("scores a single bucket as insufficient history", () => {
    const verdict = scoreSeries({ starts: [0], values: [5] }, defaultAnomalySettings("day"), "count");
    expect(verdict).toMatchObject({ kind: "insufficient_history", scored: 0 });
    expect(verdict.buckets).toEqual([
      {
        start: 0,
        value: 5,
        expected: null,
        lower: null,
        upper: null,
        anomalous: false,
        feedback: false,
        excluded: null,
        in_detection: true,
        deviations: null,
      },
    ]);
  });

  it("cuts starts and values of unequal length to the shorter", () => {
    const values = dailyRevenue(60);
    const verdict = scoreSeries(
      { starts: startsOf(50, "day"), values },
      { ...defaultAnomalySettings("day"), detection_buckets: 5 },
      "value",
    );
    expect(verdict.buckets).toHaveLength(50);
  });

  it("survives NaN, Infinity and null-like gaps anywhere, never returning a non-finite band", () => {
    const values = hourlyOrders(21);
    for (const i of [0, 5, 200, 201, 202, 400, values.length - 1]) values[i] = Number.NaN;
    values[300] = Infinity;
    values[301] = -Infinity;
    const verdict = scoreSeries(
      { starts: startsOf(values.length, "hour"), values },
      { ...defaultAnomalySettings("hour"), detection_buckets: 200 },
      "count",
    );
    for (const b of verdict.buckets) {
      if (b.expected === null) continue;
      expect(Number.isFinite(b.expected) && Number.isFinite(b.lower!) && Number.isFinite(b.upper!) && Number.isFinite(b.deviations!)).toBe(
        true,
      );
    }
    expect(verdict.buckets[300]).toMatchObject({ expected: null, anomalous: false });
    expect(verdict.anomalous).toBe(0);
  });

  it("scores a count series with negative values (a net count) in identity space, without a Poisson part", () => {
    const values = dailyRevenue(70).map((v, i) => (i % 9 === 0 ? -v / 1000 : v / 1000));
    const verdict = scoreSeries(
      { starts: startsOf(70, "day"), values },
      { ...defaultAnomalySettings("day"), detection_buckets: 20 },
      "count",
    );
    expect(verdict.kind).toBe("scored");
    for (const b of verdict.buckets) if (b.lower !== null) expect(b.lower).toBeLessThanOrEqual(b.upper!);
  });

  it("takes a value series that crosses zero in identity space", () => {
    const values = Array.from({ length: 80 }, (_, i) => Math.sin(i) * 10);
    values[75] = 200;
    const verdict = scoreSeries(
      { starts: startsOf(80, "day"), values },
      { ...defaultAnomalySettings("day"), detection_buckets: 10 },
      "value",
    );
    expect(verdict.buckets[75]!.anomalous).toBe(true);
  });

  it("brings nonsense settings into range instead of throwing", () => {
    const settings = {
      grain: "day" as const,
      training_buckets: -3,
      detection_buckets: 1e9,
      sensitivity: -1,
      seasonality: "auto" as const,
      min_history: 0,
      relearn_buckets: 0,
    };
    expect(resolveSettings(settings)).toMatchObject({
      training_buckets: 84,
      sensitivity: 2.85,
      min_history: 7,
      relearn_buckets: 4,
      detection_buckets: 1e9,
    });
    expect(resolveSettings({ ...settings, relearn_buckets: 1 }).relearn_buckets).toBe(2);
    const verdict = scoreSeries({ starts: startsOf(70, "day"), values: dailyRevenue(70) }, settings, "value");
    expect(verdict.buckets.every((b) => b.in_detection)).toBe(true);
    expect(verdict.scored).toBeGreaterThan(0);
    expect(resolveSettings({ ...settings, training_buckets: 5, min_history: 50 })).toMatchObject({ training_buckets: 5, min_history: 5 });
  });

  it("with detection_buckets 0 judges nothing and still draws the band", () => {
    const verdict = scoreSeries(
      { starts: startsOf(70, "day"), values: dailyRevenue(70) },
      { ...defaultAnomalySettings("day"), detection_buckets: 0 },
      "value",
    );
    expect(verdict).toMatchObject({ kind: "insufficient_history", scored: 0, anomalous: 0 });
    expect(verdict.buckets.some((b) => b.expected !== null)).toBe(true);
  });

  it("ignores feedback for starts that are not in the series", () => {
    const starts = startsOf(70, "day");
    const values = dailyRevenue(70);
    const plain = scoreSeries({ starts, values }, defaultAnomalySettings("day"), "value");
    const stray = scoreSeries({ starts, values, expected_starts: new Set([1, 2, starts[0]! - 1]) }, defaultAnomalySettings("day"), "value");
    expect(stray.buckets).toEqual(plain.buckets);
  });
});
