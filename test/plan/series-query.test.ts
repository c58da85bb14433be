import { describe, expect, it } from "vitest";
import { inferCatalog } from "../../src/infer/infer.js";
import { cadenceQuery, gapSeconds, parseCadence, usualGapSeconds, type Cadence } from "../../src/plan/cadence-query.js";
import { planAnomalies, seriesQueries, seriesSpan } from "../../src/plan/series-query.js";
import { bucketSql, coveredUntil, recentSql, timeKindOf, timeRangeSql } from "../../src/plan/series-time.js";
import type { WarehouseSchema } from "../../src/plan/types.js";
import { structured, anomalySettings } from "../infer/fixtures.js";

const DAY = 86_400;
const ON = anomalySettings({ training_buckets: 56, seasonality: "auto" });
const SCHEMA: WarehouseSchema = {
  default: {
    "shop.orders": { created_at: "Nullable(DateTime)", amount: "Nullable(Float64)", status: "String", note: "String", day: "Date" },
  },
};

describe("series time SQL", () => {
  it("kinds of timestamp columns", () => {
    expect(
      ["DateTime", "Nullable(DateTime('UTC'))", "DateTime64(3)", "Date", "Date32", "UInt32", "Nullable(Int64)", "String"].map(timeKindOf),
    ).toEqual(["datetime", "datetime", "datetime", "date", "date", "number", "number", null]);
  });

  it("UTC buckets by integer arithmetic; ranges against constants of the column's type", () => {
    expect(bucketSql("`ts`", "datetime", "day")).toBe("(intDiv(toUInt32(toDateTime(`ts`)), 86400) * 86400)");
    expect(bucketSql("`ts`", "number", "hour")).toBe("(intDiv(toInt64(`ts`), 3600) * 3600)");
    expect(bucketSql("`d`", "date", "day")).toBe("(toInt64(`d`) * 86400)");
    expect(timeRangeSql("`ts`", "datetime", 1_700_000_000, 1_700_086_400)).toBe(
      "`ts` >= toDateTime(1700000000) AND `ts` < toDateTime(1700086400)",
    );
    expect(timeRangeSql("`d`", "date", 19_000 * DAY, 19_002 * DAY)).toBe("`d` >= toDate('2022-01-08') AND `d` < toDate('2022-01-10')");
    expect(timeRangeSql("`at`", "number", 10, 20)).toBe("`at` >= 10 AND `at` < 20");
    expect(recentSql("`ts`", "datetime", 10, 300)).toBe("`ts` >= toDateTime(10) AND `ts` <= now() + 300");
    expect(coveredUntil("date", 19_000 * DAY)).toBe(19_001 * DAY);
    expect(coveredUntil("datetime", 5)).toBe(5);
  });
});

describe("cadence", () => {
  it("one query: clock, newest, gap histogram", () => {
    const sql = cadenceQuery({ table: "shop.orders", timestamp: "created_at", kind: "datetime" }, 1000);
    expect(sql).toContain("FROM `shop`.`orders` WHERE `created_at` >= toDateTime(1000) AND `created_at` <= now() + 300");
    expect(sql).toContain("groupUniqArray(intDiv(t, 60))");
  });

  it("parses UInt64 strings and empty windows", () => {
    expect(parseCadence({ server_now: 100, rows: "3", newest: 90, oldest: 10, gap_minutes: ["5", "10"], gap_counts: ["2", "1"] })).toEqual({
      now: 100,
      rows: 3,
      newest: 90,
      oldest: 10,
      gaps: [
        [5, 2],
        [10, 1],
      ],
    });
    expect(parseCadence({ server_now: 100, rows: "0", newest: 0, gap_minutes: [], gap_counts: [] })).toEqual({
      now: 100,
      rows: 0,
      newest: null,
      oldest: null,
      gaps: [],
    });
    expect(parseCadence(undefined)).toBeNull();
  });

  it("the usual gap is time-weighted: nightly pauses are usual, one long outage is not", () => {
    // 56 days of 17 hourly gaps and one 7-hour night each, plus one 3-day outage.
    const nights: [number, number][] = [
      [60, 17 * 56],
      [420, 56],
      [4320, 1],
    ];
    expect(usualGapSeconds(nights)).toBe(420 * 60);
    expect(usualGapSeconds([[1, 80_000]])).toBe(60);
    expect(usualGapSeconds([])).toBe(0);
  });

  it("expands the histogram for the method, thinned evenly past the limit", () => {
    expect(
      gapSeconds([
        [5, 2],
        [10, 1],
      ]),
    ).toEqual([300, 300, 600]);
    const thinned = gapSeconds(
      [
        [1, 90_000],
        [60, 10_000],
      ],
      1000,
    );
    expect(thinned).toHaveLength(1000);
    expect(thinned.filter((g) => g === 3600)).toHaveLength(100);
  });
});

describe("planAnomalies", () => {
  const a = structured({ name: "a", timestamp: "created_at", anomalies: ON, filter: "status = 'x'", filter_columns: ["status"] });
  const b = structured({
    name: "b",
    timestamp: "created_at",
    anomalies: { ...ON, training_buckets: 90 },
    measures: [
      { alias: "peak", function: "Max", column: "amount" },
      { alias: "text", function: "Max", column: "note" },
    ],
  });
  const c = structured({ name: "c", timestamp: "created_at", anomalies: { ...ON, grain: "hour", training_buckets: 48 } });
  const d = structured({ name: "d", timestamp: "missing_col", anomalies: ON });
  const tests = inferCatalog([a, b, c, d]).filter((t) => t.rule.endsWith("_anomaly"));
  const plan = planAnomalies(tests, SCHEMA);

  it("one group per (datasource, table, timestamp), one grain plan per grain, spans of the longest test and its warm-up", () => {
    expect(plan.groups.map((g) => g.id)).toEqual(["default|shop.orders|created_at"]);
    const [group] = plan.groups;
    expect(group!.grains.map((g) => [g.grain, g.buckets, g.tests.length])).toEqual([
      ["hour", 2 * 48 + 2, 2],
      ["day", 2 * 90 + 2, 4],
    ]);
    expect(group!.cadenceTests).toHaveLength(3);
    // The cadence query reaches back to the warm-up's start: its oldest row is where the history begins.
    expect(group!.windowSeconds).toBe(182 * DAY + 7 * DAY);
  });

  it("skips what cannot be read, saying why", () => {
    expect(plan.skipped.map((s) => `${s.outcome}: ${s.reason}`).sort()).toEqual([
      "not_applicable: note is String, not a number",
      "not_evaluated: column missing: shop.orders.missing_col",
      "not_evaluated: column missing: shop.orders.missing_col",
      "not_evaluated: column missing: shop.orders.missing_col",
    ]);
  });

  it("complete buckets only: before the current one, and not past the newest row plus its usual gap", () => {
    const cadence: Cadence = { now: 100 * DAY + 3600, rows: 10, newest: 100 * DAY + 60, oldest: 50 * DAY, gaps: [] };
    expect(seriesSpan(cadence, "datetime", "day", 10, 0)).toEqual({ start: 90 * DAY, end: 100 * DAY, step: DAY });
    // Yesterday's batch has not landed: yesterday is not complete yet...
    const waiting: Cadence = { ...cadence, newest: 99 * DAY - 600 };
    expect(seriesSpan(waiting, "datetime", "day", 10, 0)!.end).toBe(98 * DAY);
    // ...unless rows usually pause that long (a night).
    expect(seriesSpan(waiting, "datetime", "day", 10, 7 * 3600)!.end).toBe(99 * DAY);
    // A Date covers its whole day.
    expect(seriesSpan({ ...cadence, newest: 99 * DAY }, "date", "day", 10, 0)!.end).toBe(100 * DAY);
    expect(seriesSpan({ ...cadence, rows: 0, newest: null }, "datetime", "day", 10, 0)).toBeNull();
  });

  it("one query per grain: filters folded like the one-pass scan, missing values counted", () => {
    const group = plan.groups[0]!;
    const day = group.grains.find((g) => g.grain === "day")!;
    const [query, ...more] = seriesQueries(group, day, { start: 8 * DAY, end: 100 * DAY, step: DAY }, 262_144);
    expect(more).toEqual([]);
    expect(query!.sql).toBe(
      "SELECT toUInt32((intDiv(toUInt32(toDateTime(`created_at`)), 86400) * 86400)) AS b, count() AS total, " +
        "ifNull(countIf(status = 'x'), 0) AS c1, ifNull(sumIf(`amount`, status = 'x'), 0) AS c2, " +
        "max(`amount`) AS c3, count(`amount`) AS c4 FROM `shop`.`orders` " +
        "WHERE `created_at` >= toDateTime(691200) AND `created_at` < toDateTime(8640000) GROUP BY b ORDER BY b",
    );
    expect(query!.outputs.map((o) => [o.alias, o.part, o.empty])).toEqual([
      ["c1", "value", 0],
      ["c2", "value", 0],
      ["total", "value", 0],
      ["c3", "value", null],
      ["c4", "count", 0],
    ]);
  });

  it("splits past the byte budget, every part with the same GROUP BY", () => {
    const group = plan.groups[0]!;
    const day = group.grains.find((g) => g.grain === "day")!;
    const parts = seriesQueries(group, day, { start: 8 * DAY, end: 100 * DAY, step: DAY }, 300);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.sql).toMatch(/ GROUP BY b ORDER BY b$/);
    expect(parts.flatMap((p) => p.outputs).map((o) => o.test_key)).toHaveLength(5);
  });
});
