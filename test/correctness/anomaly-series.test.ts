// The anomaly series as the scan reads them (cadence query, then one query per table and grain),
// on both engines, bucket by bucket against the rows the fixture inserted: dirty data included.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InferredTest } from "../../src/infer/types.js";
import { schemaFromRows, schemaQuery, type ColumnRow } from "../../src/plan/schema-query.js";
import type { WarehouseSchema } from "../../src/plan/types.js";
import { readAnomalySeries, type AnomalyReading } from "../../src/scan/anomaly-series.js";
import { createServerWarehouse } from "../../src/warehouse/clickhouse-server.js";
import { bucketStarts } from "../../src/evaluate/series-values.js";
import { usualGapSeconds } from "../../src/plan/cadence-query.js";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { uniqueDatabase, type WarehouseHandle, engineCases } from "../helpers/warehouses.js";
import { countingWarehouse, type SentQuery } from "./run-scan.js";
import { loadYaml } from "./fixture-catalog.js";
import { DAY, eventRows, eventsTable, expectedSeries, HOUR, insertEvents, plain, type EventRow } from "./series-fixture.js";

const catalogue = (db: string) => `metrics:
  - name: all_events
    table: ${db}.events
    timestamp: ts
    anomalies: { training_buckets: 14, detection_buckets: 2 }
    measures:
      - { alias: total, function: Sum, column: amount }
      - { alias: mean, function: Avg, column: amount }
      - { alias: peak, function: Max, column: amount }
      - { alias: users, function: CountDistinct, column: user_id }
      - { alias: events, function: Count }
  - name: a_events
    table: ${db}.events
    timestamp: ts
    filter: "kind = 'a'"
    anomalies: { training_buckets: 14, detection_buckets: 2 }
    measures:
      - { alias: total, function: Sum, column: amount }
      - { alias: low, function: Min, column: amount }
  - name: hourly_events
    table: ${db}.events
    timestamp: ts
    anomalies: { grain: hour, training_buckets: 48, detection_buckets: 2 }
    measures:
      - { alias: events, function: Count }
  - name: by_date
    table: ${db}.kinds
    timestamp: day
    anomalies: { training_buckets: 5, detection_buckets: 1 }
    measures:
      - { alias: n, function: Count }
  - name: by_epoch
    table: ${db}.kinds
    timestamp: at
    anomalies: { training_buckets: 5, detection_buckets: 1 }
    measures:
      - { alias: n, function: Count }
  - name: by_text
    table: ${db}.kinds
    timestamp: label
    anomalies: { training_buckets: 5, detection_buckets: 1 }
    measures:
      - { alias: n, function: Count }
  - name: hourly_dates
    table: ${db}.kinds
    timestamp: day
    anomalies: { grain: hour }
    measures:
      - { alias: n, function: Count }
  - name: broken
    table: ${db}.kinds
    timestamp: at
    anomalies: { training_buckets: 5, detection_buckets: 1 }
    measures:
      - { alias: boom, function: Sum, expr: "intDiv(n, 0)" }
`;

/**
 * A scan reads a warm-up before each check's window (plan/series-query.ts historyBuckets), so a
 * span reaches back past the tables' first rows: a bucket starting before a table's oldest row is
 * missing, not 0 (readSeries).
 */
const fromOldest = (expected: (number | null)[], starts: readonly number[], oldest: number): (number | null)[] =>
  expected.map((v, i) => (starts[i]! < oldest ? null : v));

describe.each(engineCases)("$name: anomaly series from the warehouse", (engine) => {
  const db = uniqueDatabase("mr_series");
  let handle: WarehouseHandle | undefined;
  let snapshot: CatalogSnapshot;
  let reading: AnomalyReading;
  let rows: EventRow[];
  let today: number;
  let nowSec: number;
  const sent: SentQuery[] = [];

  const test = (metric: string, rule: string, measure?: string): InferredTest =>
    snapshot.tests.find((t) => t.metric === metric && t.rule === rule && (measure === undefined || t.measure === measure))!;
  const series = (t: InferredTest) => {
    const group = [...reading.groups.values()].find((g) => g.grains.some((gr) => gr.series?.checks.has(t.key)));
    const grain = group!.grains.find((gr) => gr.series?.checks.has(t.key))!;
    return { span: grain.series!.span, values: plain(grain.series!.checks.get(t.key)!.values) };
  };

  beforeAll(async () => {
    handle = await engine.open();
    await handle.exec(`DROP DATABASE IF EXISTS ${db}`);
    await handle.exec(`CREATE DATABASE ${db}`);
    nowSec = Number((await handle.warehouse.query("SELECT toUInt32(now()) AS now", { queryId: `${db}-now` }))[0]!.now);
    today = Math.floor(nowSec / DAY) * DAY;
    const { first, late } = eventRows(today);
    rows = [...first, ...late];
    await handle.exec(eventsTable(db));
    await handle.exec(insertEvents(db, first));
    await handle.exec(insertEvents(db, late));
    // kinds: one row per day for 8 days back and today, on a Date, a unix-seconds and a String column.
    await handle.exec(`CREATE TABLE ${db}.kinds (id UInt32, day Date, at UInt32, label String, n UInt32) ENGINE = MergeTree() ORDER BY id`);
    const days = Array.from({ length: 9 }, (_, d) => d);
    await handle.exec(
      `INSERT INTO ${db}.kinds VALUES ${days
        .map(
          (d) =>
            `(${d + 1}, toDate('${new Date((today - d * DAY) * 1000).toISOString().slice(0, 10)}'), ${today - d * DAY + 600}, 'x', ${d + 1})`,
        )
        .join(", ")}`,
    );
    snapshot = await loadYaml({ "series.yaml": catalogue(db) });
    expect(snapshot.errors).toEqual([]);
    const schemaRows = await handle.warehouse.query(schemaQuery([`${db}.events`, `${db}.kinds`]), { queryId: `${db}-schema` });
    const schema: WarehouseSchema = { default: schemaFromRows(schemaRows as unknown as ColumnRow[]) };
    reading = await readAnomalySeries(
      snapshot.tests.filter((t) => t.rule.endsWith("_anomaly")),
      schema,
      new Map([["default", countingWarehouse(handle.warehouse, sent)]]),
      { scanId: `${db}-scan`, concurrency: 2, maxQuerySize: 262_144, signal: new AbortController().signal },
    );
  });
  afterAll(async () => {
    await handle?.exec(`DROP DATABASE IF EXISTS ${db}`);
    await handle?.close();
  });

  it("one cadence query per (table, timestamp) and one series query per grain", () => {
    const cadence = sent.filter((q) => q.options.queryId.endsWith("-cadence"));
    const seriesQueries = sent.filter((q) => !q.options.queryId.endsWith("-cadence"));
    // events.ts, kinds.day, kinds.at (kinds.label is no time: never queried)
    expect(cadence).toHaveLength(3);
    // events: day + hour; kinds.day: day (its hour grain is not applicable); kinds.at: day, refused
    // (the broken expression), then once per check: by_epoch's volume, broken's sum.
    expect(seriesQueries.map((q) => q.options.queryId.replace(/^.*-series\d+-/, "")).sort()).toEqual([
      "day",
      "day",
      "day",
      "day-t1",
      "day-t2",
      "hour",
    ]);
    expect(reading.queries).toBe(9);
    for (const q of seriesQueries) expect(q.sql).toMatch(/ WHERE `(ts|day|at)` >= (toDateTime|toDate)?\(?/);
  });

  it("day buckets: the complete days of the span, every aggregate exact, dirty rows where they belong", () => {
    const volume = series(test("all_events", "volume_anomaly"));
    // 14 + 2 days, and the 14-day warm-up before them.
    expect(volume.span).toEqual({ start: today - 30 * DAY, end: today, step: DAY });
    const starts = bucketStarts(volume.span);
    expect(starts).toHaveLength(30);
    const oldest = today - 20 * DAY + HOUR;
    expect(volume.values).toEqual(fromOldest(expectedSeries(rows, starts, DAY, "count"), starts, oldest));
    expect(volume.values.slice(0, 11)).toEqual(Array(11).fill(null));
    // Spot checks of what the model computes: the drop, the empty day, the duplicate, the late rows.
    const at = (d: number) => starts.indexOf(today - d * DAY);
    expect([volume.values[at(3)], volume.values[at(15)], volume.values[at(7)], volume.values[at(10)]]).toEqual([5, 0, 13, 15]);
    const value = (measure: string, aggregate: Parameters<typeof expectedSeries>[3]) =>
      expect(series(test("all_events", "metric_value_anomaly", measure)).values, measure).toEqual(
        fromOldest(expectedSeries(rows, starts, DAY, aggregate), starts, oldest),
      );
    value("total", "sum");
    value("mean", "avg");
    value("peak", "max");
    value("users", "distinct");
    expect(series(test("all_events", "metric_value_anomaly", "total")).values[at(15)]).toBe(0);
    expect(series(test("all_events", "metric_value_anomaly", "mean")).values[at(15)]).toBeNull();
    expect(series(test("all_events", "metric_value_anomaly", "peak")).values[at(5)]).toBe(1000);
  });

  it("filtered series fold the filter into the aggregates of the same query", () => {
    const starts = bucketStarts(series(test("a_events", "volume_anomaly")).span);
    const isA = (r: EventRow) => r.kind === "a";
    const expected = (aggregate: Parameters<typeof expectedSeries>[3]) =>
      fromOldest(expectedSeries(rows, starts, DAY, aggregate, isA), starts, today - 20 * DAY + HOUR);
    expect(series(test("a_events", "volume_anomaly")).values).toEqual(expected("count"));
    expect(series(test("a_events", "metric_value_anomaly", "total")).values).toEqual(expected("sum"));
    expect(series(test("a_events", "metric_value_anomaly", "low")).values).toEqual(expected("min"));
    const dayQuery = sent.find((q) => q.options.queryId.endsWith("-day") && q.sql.includes("`events`"))!;
    expect(dayQuery.sql).toContain("countIf(kind = 'a')");
  });

  it("hour buckets end at the current hour, or where the table's usual gap after its newest row ends", () => {
    const hourly = series(test("hourly_events", "volume_anomaly"));
    const current = Math.floor(nowSec / HOUR) * HOUR;
    // The newest row is at 00:04 today and the table usually goes up to 20 hours without a row
    // (the fixture's day of 5 rows: 05:00 to 01:00 the next day). Past 20:00 the hours after it
    // are left to the freshness rules (seriesSpan), so the span's end depends on the time of day.
    const key = test("hourly_events", "volume_anomaly").key;
    const cadence = [...reading.groups.values()].find((g) => g.grains.some((gr) => gr.series?.checks.has(key)))!.cadence!;
    expect(cadence.newest).toBe(today + 4 * 60);
    expect(usualGapSeconds(cadence.gaps)).toBe(20 * HOUR);
    const end = Math.min(current, today + 20 * HOUR);
    expect(hourly.span).toEqual({ start: end - (2 * 48 + 2) * HOUR, end, step: HOUR });
    expect(hourly.values).toEqual(expectedSeries(rows, bucketStarts(hourly.span), HOUR, "count"));
  });

  it("Date and unix-seconds timestamps; a String or an hour grain on a Date is not read", () => {
    const byDate = series(test("by_date", "volume_anomaly"));
    // 5 + 1 days and the 5-day warm-up; the rows go back 8 days (the Date column's first day is
    // whole, the unix-seconds column's first row is 10 minutes into its day: that day is partial).
    expect(byDate.span).toEqual({ start: today - 11 * DAY, end: today, step: DAY });
    expect(byDate.values).toEqual([null, null, null, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(series(test("by_epoch", "volume_anomaly")).values).toEqual([null, null, null, null, 1, 1, 1, 1, 1, 1, 1]);
    const skipped = new Map(reading.plan.skipped.map((s) => [s.test_key, `${s.outcome}: ${s.reason}`]));
    expect(skipped.get(test("by_text", "volume_anomaly").key)).toBe("not_evaluated: label is String, not a Date, DateTime or unix time");
    expect(skipped.get(test("hourly_dates", "volume_anomaly").key)).toBe("not_applicable: day is a Date: no hours to bucket by");
  });

  it("the cadence: server clock, newest row (not future-dated), gaps between rows in minutes", () => {
    const events = reading.groups.get(`default|${db}.events|ts`)!;
    expect(events.cadence!.newest).toBe(today + 240);
    expect(events.cadence!.rows).toBe(rows.filter((r) => r.ts !== null && r.ts <= nowSec + 300).length);
    expect(Math.abs(events.cadence!.now - nowSec)).toBeLessThan(60);
    expect(events.cadence!.gaps.find(([minutes]) => minutes === 60)![1]).toBeGreaterThan(100);
  });

  it("a check ClickHouse refuses is not evaluated; the others of its query are read again on their own", () => {
    const kindsAt = reading.groups.get(`default|${db}.kinds|at`)!;
    const failed = kindsAt.grains[0]!.failed;
    expect([...failed.keys()]).toEqual([test("broken", "metric_value_anomaly").key]);
    expect(failed.get(test("broken", "metric_value_anomaly").key)).toMatch(/ClickHouse error/);
    expect(series(test("by_epoch", "volume_anomaly")).values).toEqual([null, null, null, null, 1, 1, 1, 1, 1, 1, 1]);
    expect(reading.groups.get(`default|${db}.kinds|day`)!.grains[0]!.failed.size).toBe(0);
  });

  it("a warehouse that does not answer fails the read (a fault is never a finding)", async () => {
    const dead = createServerWarehouse({ name: "default", url: "http://127.0.0.1:1", timeoutSeconds: 5 });
    try {
      const schemaRows = await handle!.warehouse.query(schemaQuery([`${db}.events`]), { queryId: `${db}-schema2` });
      const read = readAnomalySeries(
        snapshot.tests.filter((t) => t.rule.endsWith("_anomaly")),
        { default: schemaFromRows(schemaRows as unknown as ColumnRow[]) },
        new Map([["default", dead]]),
        { scanId: `${db}-dead`, concurrency: 2, maxQuerySize: 262_144, signal: new AbortController().signal },
      );
      await expect(read).rejects.toThrow(/^warehouse "default" did not answer: .*ECONNREFUSED/);
    } finally {
      await dead.close();
    }
  });
});
