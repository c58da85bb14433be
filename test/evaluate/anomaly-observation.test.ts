// The pure step from anomaly series to observations: which window is scored, what the message
// and the sample query say, what is flagged for the store; verdicts are built by hand here (a
// unit test of the observation), and by the real scoring in scoreCheck.
import { ANOMALOUS, FEEDBACK, toSeriesVerdicts } from "../../src/evaluate/series-verdicts.js";
import { describe, expect, it } from "vitest";
import type { BucketVerdict, SeriesVerdict } from "../../src/anomaly/types.js";
import {
  bucketLabel,
  bucketRowsSql,
  feedbackIndex,
  formatValue,
  observeSeries,
  scoreCheck,
  rescore,
  seriesKind,
  seriesMeasure,
} from "../../src/evaluate/anomaly-observation.js";
import { judgeAnomalyCheck, judgeGroup, locateAnomalyChecks } from "../../src/evaluate/anomaly-judge.js";
import type { AnomalyJudgement } from "../../src/evaluate/types.js";
import { readSeries, type GroupReading } from "../../src/evaluate/series-values.js";
import { inferTests } from "../../src/infer/infer.js";
import type { InferredTest } from "../../src/infer/types.js";
import type { SeriesGroup } from "../../src/plan/series-query.js";
import { structured, anomalySettings } from "../infer/fixtures.js";

const DAY = 86_400;
const ON = anomalySettings();
const ir = structured({
  timestamp: "created_at",
  filter: "status = 'completed'",
  filter_columns: ["status"],
  anomalies: ON,
  measures: [
    { alias: "revenue", function: "Sum", column: "amount" },
    { alias: "p95", function: "Percentile", column: "amount", percentile: 0.95 },
    { alias: "buyers", function: "CountDistinct", column: "customer_id" },
  ],
});
const tests = inferTests(ir, [ir]);
const byRule = (rule: string, measure?: string) => tests.find((t) => t.rule === rule && (measure === undefined || t.measure === measure))!;
const volume = byRule("volume_anomaly");
const revenue = byRule("metric_value_anomaly", "revenue");
const freshness = byRule("freshness_anomaly");
const group = { timestamp: "created_at", kind: "datetime" as const };

const bucket = (day: number, value: number, extra: Partial<BucketVerdict> = {}): BucketVerdict => ({
  start: day * DAY * 1000,
  value,
  expected: 100,
  lower: 80,
  upper: 120,
  anomalous: false,
  feedback: false,
  excluded: null,
  in_detection: false,
  deviations: 0,
  ...extra,
});
const verdict = (buckets: BucketVerdict[], extra: Partial<SeriesVerdict> = {}): SeriesVerdict => ({
  kind: "scored",
  seasonality: "none",
  buckets,
  scored: buckets.filter((b) => b.in_detection).length,
  anomalous: buckets.filter((b) => b.in_detection && b.anomalous).length,
  level_shift_at: null,
  level_shifts: [],
  ...extra,
});

describe("anomaly observations", () => {
  it("kinds and measures of series", () => {
    expect([seriesKind(volume.probe as never), seriesKind(revenue.probe as never)]).toEqual(["count", "value"]);
    expect(seriesKind(byRule("metric_value_anomaly", "buyers").probe as never)).toBe("count");
    expect([seriesMeasure(volume.probe as never), seriesMeasure(revenue.probe as never)]).toEqual(["count()", "Sum(`amount`)"]);
    expect(seriesMeasure(byRule("metric_value_anomaly", "p95").probe as never)).toBe("Percentile(0.95)(`amount`)");
  });

  it("formats days, hours and values as people read them", () => {
    expect(bucketLabel(Date.UTC(2026, 10, 23), { grain: "day" } as never)).toBe("2026-11-23");
    expect(bucketLabel(Date.UTC(2026, 10, 23, 14), { grain: "hour" } as never)).toBe("2026-11-23 14:00 UTC");
    expect([formatValue(222_900), formatValue(23.81), formatValue(0.012345), formatValue(null), formatValue(Number.NaN)]).toEqual([
      "222,900",
      "23.8",
      "0.0123",
      "no value",
      "no value",
    ]);
  });

  it("an anomalous detection bucket: counted, named with its value and band, its rows as the sample", () => {
    const buckets = [
      bucket(1, 100),
      bucket(2, 100, { in_detection: true }),
      bucket(3, 12, { in_detection: true, anomalous: true, deviations: -9 }),
    ];
    const { observation, flagged } = observeSeries(volume, group, verdict(buckets));
    expect(observation).toEqual({
      outcome: "measured",
      rows_affected: 1,
      rows_total: 2,
      message: "1 of 2 days outside the expected range: 1970-01-04 had 12 rows, expected 80 to 120",
      sample_sql:
        "SELECT * FROM `shop`.`orders` WHERE (status = 'completed') AND `created_at` >= toDateTime(259200) AND `created_at` < toDateTime(345600) ORDER BY `created_at` LIMIT 10",
    });
    expect(flagged).toEqual([
      {
        check_key: volume.key,
        rule: "volume_anomaly",
        measure: "count()",
        start: new Date(3 * DAY * 1000),
        value: 12,
        expected: 100,
        lower: 80,
        upper: 120,
      },
    ]);
    // Anomalous training buckets are the method's business (left out of training), not findings.
    const training = observeSeries(volume, group, verdict([bucket(1, 900, { anomalous: true }), bucket(2, 100, { in_detection: true })]));
    expect(training.observation.rows_affected).toBe(0);
    expect(training.flagged).toEqual([]);
    expect(training.observation.message).toBe(
      "rows within the expected range in 1 day (latest: 1970-01-03 had 100 rows, expected 80 to 120)",
    );
  });

  it("not enough history is not applicable, saying how much there is and how much is needed", () => {
    const { observation } = observeSeries(
      revenue,
      group,
      verdict([bucket(1, 5), bucket(2, Number.NaN)], { kind: "insufficient_history", scored: 0 }),
    );
    expect(observation).toEqual({
      outcome: "not_applicable",
      rows_affected: 0,
      rows_total: 0,
      message: "not applicable: not enough history yet (1 complete day with a value in the 2-day window)",
    });
  });

  it("bucket rows of a Date column compare with dates", () => {
    expect(bucketRowsSql(volume, { timestamp: "day", kind: "date" }, 2 * DAY * 1000, DAY)).toBe(
      "SELECT * FROM `shop`.`orders` WHERE (status = 'completed') AND `day` >= toDate('1970-01-03') AND `day` < toDate('1970-01-04') ORDER BY `day` LIMIT 10",
    );
  });
});

describe("scoreCheck and judgeAnomalyCheck on a real series", () => {
  // 50 days of 95..105 rows, then a drop to 20 on the last day.
  const span = { start: 0, end: 50 * DAY, step: DAY };
  const rows = Array.from({ length: 50 }, (_, d) => ({ b: d * DAY, total: d === 49 ? 20 : 100 + ((d * 37) % 11) - 5 }));
  const series = readSeries(span, [{ outputs: [{ alias: "total", test_key: volume.key, part: "value", empty: 0 }], rows }]);
  const plan: SeriesGroup = {
    id: "g",
    datasource: "default",
    table: "shop.orders",
    timestamp: "created_at",
    kind: "datetime",
    grains: [{ grain: "day", segment: null, buckets: 42, tests: [volume] }],
    cadenceTests: [freshness],
    windowSeconds: 47 * DAY,
  };
  const reading = {
    group: plan,
    cadence: { now: 50 * DAY + 60, rows: 4000, newest: 50 * DAY, oldest: 0, gaps: [[15, 4000]] as [number, number][] },
    error: null,
    grains: [{ grain: "day" as const, series, failed: new Map<string, string>() }],
    // Loads seen hourly, the last one 20 minutes ago (see test/evaluate/load-arrivals.test.ts).
    loads: {
      now: 50 * DAY + 60,
      history: {
        state: { series: "g", first_seen: 0, newest: 50 * DAY, rows: null, parts: null, loads: 10, last_load: 50 * DAY - 1140 },
        arrivals: Array.from({ length: 10 }, (_, i) => ({ at: 50 * DAY - 1140 - (9 - i) * 3600, gap: i === 0 ? null : 3600, slack: 0 })),
      },
    },
  };

  it("scores the check's own window (training + detection), oldest first, after the warm-up before it", () => {
    const { verdict: v, warm_up } = scoreCheck(volume, series, new Map())!;
    expect(v.buckets).toHaveLength(42);
    // The 8 days read before the window (of up to 40) trained the model, and are kept to score again.
    expect(warm_up).toEqual(series.checks.get(volume.key)!.values.slice(0, 8));
    expect(v.buckets[0]!.start).toBe(8 * DAY * 1000);
    expect(v.buckets.filter((b) => b.in_detection).map((b) => b.start)).toEqual([48 * DAY * 1000, 49 * DAY * 1000]);
    expect(v.buckets.filter((b) => b.anomalous).map((b) => b.value)).toEqual([20]);
    const expected = scoreCheck(volume, series, feedbackIndex([{ check_key: volume.key, start: new Date(49 * DAY * 1000) }]))!.verdict;
    expect(expected.buckets.at(-1)).toMatchObject({ anomalous: false, feedback: true });
  });

  it("leaves the check's holidays and exclusions out: the drop on an excluded day is marked, not flagged", () => {
    const excluding = (exclude: { from: string; to: string; reason: string }[]): InferredTest => {
      const probe = volume.probe as Extract<InferredTest["probe"], { type: "volume_series" }>;
      return { ...volume, probe: { ...probe, settings: { ...probe.settings, exclude } } };
    };
    const lastDay = excluding([{ from: "1970-02-19T00:00:00.000Z", to: "1970-02-20T00:00:00.000Z", reason: "load test" }]);
    const v = scoreCheck(lastDay, series, new Map())!.verdict;
    expect(v.buckets.at(-1)).toMatchObject({ value: 20, anomalous: false, excluded: "load test" });
    expect(v.buckets.filter((b) => b.excluded !== null)).toHaveLength(1);
    const judged = observeSeries(lastDay, group, v);
    expect(judged.flagged).toEqual([]);
    expect(judged.observation).toMatchObject({ outcome: "measured", rows_affected: 0, rows_total: 1 });
    expect(judged.observation.message).toMatch(/; 1 excluded \(load test\)$/);
    // Every detection bucket excluded: nothing to judge, said so.
    const both = excluding([{ from: "1970-02-18T00:00:00.000Z", to: "1970-02-20T00:00:00.000Z", reason: "migration" }]);
    expect(observeSeries(both, group, scoreCheck(both, series, new Map())!.verdict).observation).toEqual({
      outcome: "not_applicable",
      rows_affected: 0,
      rows_total: 0,
      message: "not applicable: excluded from anomaly detection: 2 days (migration)",
    });
  });

  it("the verdicts the scan keeps, scored again with feedback from their own values, are what the next scan scores", () => {
    const judged = judgeAnomalyCheck(volume, { reading, grain: reading.grains[0]! }, new Map());
    const held = judged.verdicts!;
    const scanned = scoreCheck(volume, series, new Map())!;
    expect(held).toEqual(toSeriesVerdicts(volume.key, scanned.verdict, scanned.warm_up));
    expect(held.warm_up).toHaveLength(8);
    expect(held.flags.at(-1)).toBe(ANOMALOUS);
    const feedback = feedbackIndex([{ check_key: volume.key, start: new Date(49 * DAY * 1000) }]);
    const again = rescore(volume, held, feedback)!;
    const next = scoreCheck(volume, series, feedback)!;
    expect(again).toEqual(toSeriesVerdicts(volume.key, next.verdict, next.warm_up));
    expect(again.flags.at(-1)).toBe(FEEDBACK);
  });

  it("judges every kind of answer the scan can have", () => {
    const located = locateAnomalyChecks([plan], new Map([["g", reading]]), [
      { test_key: "skipped", outcome: "not_applicable", reason: "x is String" },
    ]);
    const judged = judgeAnomalyCheck(volume, located.get(volume.key), new Map());
    expect(judged).toMatchObject({ judged: true, observation: { outcome: "measured", rows_affected: 1, rows_total: 2 } });
    expect(judged.flagged).toHaveLength(1);
    expect(judgeAnomalyCheck(freshness, located.get(freshness.key), new Map()).observation).toEqual({
      outcome: "measured",
      rows_affected: 0,
      rows_total: 1,
      message: "last load seen 20m ago; loads usually land every 1h, stale after 1h 30m",
    });
    // Without a kept history (a one-off scan) the rule learns, never guesses from event times.
    expect(judgeAnomalyCheck(freshness, { reading: { ...reading, loads: undefined }, grain: null }, new Map()).observation.message).toBe(
      "not applicable: learning the load cadence, 0 of 5 loads seen",
    );
    expect(judgeAnomalyCheck({ key: "skipped" } as InferredTest, located.get("skipped"), new Map()).observation).toEqual({
      outcome: "not_applicable",
      rows_affected: 0,
      rows_total: 0,
      message: "not applicable: x is String",
    });
    const refused = {
      ...reading,
      grains: [{ ...reading.grains[0]!, failed: new Map([[volume.key, "ClickHouse error 153: Division by zero"]]) }],
    };
    expect(judgeAnomalyCheck(volume, { reading: refused, grain: refused.grains[0]! }, new Map())).toEqual({
      observation: {
        outcome: "not_evaluated",
        rows_affected: 0,
        rows_total: 0,
        message: "not evaluated: ClickHouse error 153: Division by zero",
      },
      flagged: [],
      judged: false,
    });
    const empty = { ...reading, grains: [{ ...reading.grains[0]!, series: null }] };
    expect(judgeAnomalyCheck(volume, { reading: empty, grain: empty.grains[0]! }, new Map()).observation.message).toBe(
      "not applicable: no rows in the history window (by day), nothing to compare",
    );
    expect(
      judgeAnomalyCheck(volume, { reading: { ...reading, error: "no such datasource", cadence: null }, grain: null }, new Map()).observation
        .outcome,
    ).toBe("not_evaluated");
    expect(judgeAnomalyCheck(volume, undefined, new Map()).observation.message).toBe("not evaluated: the anomaly check was not planned");
  });

  it("judgeGroup: a reading holding this check's judgement with the same feedback is not scored again", () => {
    const fresh = { ...reading, grains: reading.grains.map((g) => ({ ...g })) } as GroupReading;
    const into = new Map<string, AnomalyJudgement>();
    judgeGroup(fresh, new Map(), into);
    expect(into.get(volume.key)!.observation.rows_affected).toBe(1);
    expect(fresh.held!.get(volume.key)).toMatchObject({ feedback: "", judged: true });
    // A held judgement is taken as it is (here a planted one, to show it is not recomputed)...
    const planted = { ...fresh.held!.get(volume.key)!, observation: { ...fresh.held!.get(volume.key)!.observation, message: "held" } };
    fresh.held!.set(volume.key, planted);
    const again = new Map<string, AnomalyJudgement>();
    judgeGroup(fresh, new Map(), again);
    expect(again.get(volume.key)!.observation.message).toBe("held");
    // ...unless the feedback changed: then the series is scored again.
    const feedback = feedbackIndex([{ check_key: volume.key, start: new Date(49 * DAY * 1000) }]);
    const withFeedback = new Map<string, AnomalyJudgement>();
    judgeGroup(fresh, feedback, withFeedback);
    expect(withFeedback.get(volume.key)!.observation).toMatchObject({ rows_affected: 0, rows_total: 2 });
    expect(fresh.held!.get(volume.key)!.feedback).toBe(String(49 * DAY * 1000));
    // freshness_anomaly is judged every time (its gap moves with the clock).
    expect(withFeedback.get(freshness.key)!.observation.outcome).toBe("measured");
  });
});
