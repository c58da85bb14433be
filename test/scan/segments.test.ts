// Segment series (anomalies.segments) through the real scan path on both engines (chdb always,
// the ClickHouse 18.16 server when CLICKHOUSE_URL is set), on dirty data: a country that stops
// for the last complete day, a NULL country, an empty one, 30 small values folded into `other`,
// a country first seen 5 days ago, and a segment dimension whose expression throws on the data.
import { describe, expect, it } from "vitest";
import { engineCases } from "../helpers/warehouses.js";
import { scanProject, seriesQueries } from "../correctness/run-scan.js";
import { sameVerdicts, seriesOf } from "../../src/evaluate/series-verdicts.js";
import { createSeriesCache } from "../../src/read-model/series-cache.js";
import { executeScan } from "../../src/scan/execute-scan.js";
import { countingWarehouse, type SentQuery } from "../correctness/run-scan.js";

const DAY = 86_400;
const DAYS = 70;
// The last complete day is the newest row's: the series end there (seriesSpan).
const today = Math.floor(Date.now() / 1000 / DAY) * DAY;
const base = today - DAYS * DAY;

/** `perHour` rows an hour of `country` (an SQL expression of `number`) from day `from` to `to`. */
const rows = (db: string, country: string, perHour: number, from = 0, to = DAYS) =>
  `INSERT INTO ${db}.orders SELECT toDateTime(${base + from * DAY} + number * ${3600 / perHour}) AS ts, ${country} AS country, 2.5 AS amount FROM numbers(${(to - from) * 24 * perHour})`;

const statements = (db: string) => [
  `CREATE DATABASE ${db}`,
  `CREATE TABLE ${db}.orders (ts DateTime, country Nullable(String), amount Float64) ENGINE = MergeTree ORDER BY ts`,
  rows(db, "'DE'", 60, 0, DAYS - 1), // 1,440 a day, then none on the last complete day
  rows(db, "'FR'", 30),
  rows(db, "NULL", 5),
  rows(db, "''", 3),
  rows(db, "concat('c', toString(number % 30))", 30), // 30 values of 24 rows a day: the rest, in `other`
  rows(db, "'NEW'", 20, DAYS - 5), // first seen 5 days ago: learning
  // A row just now: yesterday is complete (the series end at the newest row's day otherwise).
  `INSERT INTO ${db}.orders SELECT now() - 1 AS ts, 'FR' AS country, 2.5 AS amount FROM numbers(1)`,
];

const project = (db: string) => `metrics:
  - name: orders
    table: ${db}.orders
    timestamp: ts
    measures:
      - { alias: revenue, function: Sum, column: amount }
    dimensions:
      - { name: country, column: country }
      - { name: country_code, expr: "throwIf(ifNull(country, '') = 'FR')" }
    anomalies:
      seasonality: none
      segments: [country, country_code]
      max_segments: 5
`;

describe.each(engineCases)("segment series on $name", (engine) => {
  const db = `mr_segments_${engine.name}`;
  const scan = scanProject(engine, { db, file: "orders.yml", project: project(db), statements });
  const result = (name: string) => scan.run.results.find((r) => r.name === name)!;

  it("sends one query per (table, grain, dimension), and the totals stay as they were", () => {
    const grains = seriesQueries(scan.run.sent).filter((q) => !q.options.queryId.endsWith("-cadence"));
    // s1: country_code, refused (its expression throws), then asked again check by check; s2: country.
    expect(grains.map((q) => q.options.queryId.replace(/^.*-series\d+-/, "")).sort()).toEqual([
      "day",
      "day-s1",
      "day-s1-t1",
      "day-s1-t2",
      "day-s2",
    ]);
    expect(grains.filter((q) => q.sql.includes(" AS s,"))).toHaveLength(4);
    const total = result("rows per day (by ts) are within their expected range");
    expect(total.outcome).toBe("measured");
  });

  it("flags the country that stopped, by name, with that segment's rows of that day", () => {
    const volume = result("rows per day (by ts) by country are within their expected range");
    expect(volume.status).toBe("failing");
    const day = new Date((today - DAY) * 1000).toISOString().slice(0, 10);
    expect(volume.message).toMatch(new RegExp(`^country = 'DE': 1 of 2 days outside the expected range: ${day} had 0 rows, expected `));
    expect(volume.sample_sql).toContain("WHERE (toString(`country`) = 'DE') AND ");
    const value = result("revenue (Sum(amount)) per day by country is within its expected range");
    expect(value.status).toBe("failing");
    expect(value.message).toMatch(/^country = 'DE': /);
  });

  it("keeps a series per segment: top values, NULL, other; the new value learning, never flagged", () => {
    const key = scan.snapshot.tests.find((t) => t.name === "rows per day (by ts) by country are within their expected range")!.key;
    const verdicts = scan.run.anomalies.verdicts.get(key)!;
    const segments = seriesOf(verdicts).map((v) => v.segment);
    // Top 5 by rows over the span: DE, FR, NEW (480 a day for 5 days), NULL, '' ; the 30 small ones fold into other.
    expect(segments[0]).toEqual({ dimension: "country", value: "DE", other: false });
    expect(
      segments
        .slice(1)
        .map((s) => (s!.other ? "(other)" : s!.value))
        .sort(),
    ).toEqual(["", "(other)", "FR", "NEW", null].sort());
    const fresh = seriesOf(verdicts).find((v) => v.segment?.value === "NEW")!;
    expect([...fresh.flags].every((f) => (f & 1) === 0)).toBe(true);
    // Before its first row a new value has no history of zeros: missing, not 0.
    expect(Number.isNaN(fresh.value[0]!)).toBe(true);
    const other = seriesOf(verdicts).find((v) => v.segment?.other)!;
    expect(other.value.at(-1)).toBe(30 * 24);
  });

  it("an incremental scan of the unchanged table judges the segments again from the held reading: the same verdicts, no series query", async () => {
    const cache = createSeriesCache();
    cache.storeScan(scan.run.scanId, scan.run.anomalies.readings);
    const sent: SentQuery[] = [];
    const again = await executeScan(scan.snapshot, new Map([["default", countingWarehouse(scan.warehouse, sent)]]), {
      scanId: `${scan.run.scanId}-again`,
      concurrency: 2,
      maxQuerySize: 262_144,
      signal: new AbortController().signal,
      anomalies: { cache, fingerprints: () => "unchanged", now: Math.floor(Date.now() / 1000) },
    });
    expect(again.anomalies.reused).toBe(0); // the first reading carried no fingerprint: read again
    const cache2 = createSeriesCache();
    cache2.storeScan("s2", again.anomalies.readings);
    const third = await executeScan(scan.snapshot, new Map([["default", countingWarehouse(scan.warehouse, sent)]]), {
      scanId: `${scan.run.scanId}-third`,
      concurrency: 2,
      maxQuerySize: 262_144,
      signal: new AbortController().signal,
      anomalies: { cache: cache2, fingerprints: () => "unchanged", now: Math.floor(Date.now() / 1000) },
    });
    expect(third.anomalies.reused).toBe(1);
    expect(sent.filter((q) => q.options.queryId.includes("-third-series"))).toEqual([]);
    for (const test of scan.snapshot.tests.filter((t) => t.name.includes(" by country "))) {
      expect(third.observations.get(test.key)).toEqual(again.observations.get(test.key));
      expect(sameVerdicts(third.anomalies.verdicts.get(test.key), again.anomalies.verdicts.get(test.key))).toBe(true);
    }
  });

  it("a dimension expression that throws leaves only its own checks not evaluated", () => {
    const broken = result("rows per day (by ts) by country_code are within their expected range");
    expect(broken.outcome).toBe("not_evaluated");
    expect(result("rows per day (by ts) by country are within their expected range").outcome).toBe("measured");
  });
});
