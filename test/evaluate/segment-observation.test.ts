// Segments (anomalies.segments), the pure parts: the keys and their errors, the checks inferred,
// the one query per dimension, the fold into top values / NULL / other, and the judgement (a
// vanished segment flagged by name, a new one learning, the total left as it was).
import { describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/catalog/parse-catalog.js";
import { compileCatalog } from "../../src/compile/compile.js";
import { judgeSegments, judgeSegmentsSteps, SEGMENT_CHART_HISTORY, segmentLabel } from "../../src/evaluate/segment-observation.js";
import { readSegmentedSeries, seriesCheckKeys, shiftSeries } from "../../src/evaluate/series-values.js";
import { seriesOf } from "../../src/evaluate/series-verdicts.js";
import { decodeVerdicts, encodeVerdicts } from "../../src/store/anomaly-verdicts.js";
import { inferTests } from "../../src/infer/infer.js";
import { NULL_SEGMENT, OTHER_SEGMENT, planAnomalies, seriesQueries, type SeriesOutput } from "../../src/plan/series-query.js";
import { structured, anomalySettings } from "../infer/fixtures.js";

const DAY = 86_400;
const ON = anomalySettings({ segments: ["country"], max_segments: 3 });
const ir = structured({
  timestamp: "created_at",
  anomalies: ON,
  dimensions: [
    { name: "country", source_table: null, column: "country" },
    { name: "tier", source_table: "shop.customers", column: "tier" },
  ],
});
const tests = inferTests(ir, [ir]);
const segmented = tests.filter((t) => (t.probe.type === "volume_series" || t.probe.type === "value_series") && t.probe.segment);
const volume = segmented.find((t) => t.rule === "volume_anomaly")!;

const body = (
  anomalies: string,
  dims = "  - { name: country, column: country }\n  - { name: tier, column: tier, table: shop.customers }",
) =>
  `metrics:\n  - name: m\n    table: shop.orders\n    timestamp: created_at\n    measures:\n      - { alias: revenue, function: Sum, column: amount }\n    dimensions:\n${dims.replace(/^/gm, "    ")}\n    joins:\n      - { table: shop.customers, on: { column: customer_id, references: id } }\n    anomalies: ${anomalies}\n`;
const errorsOf = (content: string) => parseCatalog([{ file: "metrics/shop.yaml", content }]).errors.map((e) => e.message);

describe("anomalies.segments: the keys", () => {
  it("compile to the IR; max_segments defaults to 20", () => {
    const catalog = parseCatalog([{ file: "metrics/shop.yaml", content: body("{ segments: [country] }") }]);
    expect(catalog.errors).toEqual([]);
    expect(compileCatalog(catalog.metrics)[0]!.anomalies).toMatchObject({ segments: ["country"], max_segments: 20 });
  });

  it("a name that is no dimension, a joined table's dimension, a bad max_segments: named errors", () => {
    expect(errorsOf(body("{ segments: [contry] }"))).toEqual([
      expect.stringMatching(
        /^metrics\/shop\.yaml: metric "m": anomalies\.segments\[0\]: segment "contry" is not a dimension of this metric \(its dimensions: country, tier\)/,
      ),
    ]);
    expect(errorsOf(body("{ segments: [tier] }"))[0]).toContain(
      'segment "tier" is a dimension of the joined table shop.customers: segments read the base table only (shop.orders)',
    );
    expect(errorsOf(body("{ segments: [country], max_segments: 0 }"))[0]).toContain("max_segments: expected a whole number from 1 to 200");
    expect(errorsOf(body("{ segments: [country], max_segments: 201 }"))[0]).toContain("expected a whole number from 1 to 200");
    expect(errorsOf(body("{ segments: [country, country] }"))[0]).toContain("a dimension is listed twice");
  });

  it("the same under MetricFlow's config.meta.metric_reliability.anomalies", () => {
    const project = (segments: string) => `
semantic_models:
  - name: orders
    model: ref('orders')
    defaults: { agg_time_dimension: ordered_at }
    entities: [{ name: order_id, type: primary, expr: id }]
    dimensions:
      - { name: ordered_at, type: time, type_params: { time_granularity: day } }
      - { name: country, type: categorical }
    measures:
      - { name: order_total, agg: sum, expr: amount }
metrics:
  - name: total
    type: simple
    type_params: { measure: order_total }
    config: { meta: { metric_reliability: { anomalies: { segments: ${segments}, max_segments: 5 } } } }
`;
    const good = parseCatalog([{ file: "p/project.yml", content: project("[country]") }], { metricflowDatabase: "db" });
    expect(good.errors).toEqual([]);
    expect(compileCatalog(good.metrics)[0]!.anomalies).toMatchObject({ segments: ["country"], max_segments: 5 });
    const bad = parseCatalog([{ file: "p/project.yml", content: project("[region]") }], { metricflowDatabase: "db" });
    expect(bad.errors.map((e) => e.message)).toEqual([
      'p/project.yml: metric "total": config.meta.metric_reliability.anomalies.segments: segment "region" is not a dimension of this metric (its dimensions: ordered_at, country)',
    ]);
  });
});

describe("segment checks", () => {
  it("one more volume and value check per dimension, keyed apart from the totals, saying `by <dimension>`", () => {
    expect(segmented.map((t) => [t.rule, t.name])).toEqual([
      ["volume_anomaly", "rows per day (by created_at) by country are within their expected range"],
      ["metric_value_anomaly", "revenue (Sum(amount)) per day by country is within its expected range"],
    ]);
    const total = tests.find((t) => t.rule === "volume_anomaly" && t !== volume)!;
    expect(volume.key).not.toBe(total.key);
    expect(volume.check).toBe(
      "count() by created_at by country (top 3) per day, 40 training + 2 detection buckets, sensitivity 4, seasonality none",
    );
    expect(volume.columns.map((c) => c.column)).toEqual(["created_at", "country"]);
  });

  it("ONE query per (table, grain, dimension): the top values by rows over the same rows, the rest as other, NULL its own", () => {
    const schema = { default: { "shop.orders": { created_at: "DateTime", amount: "Float64", country: "Nullable(String)" } } };
    const plan = planAnomalies(tests, schema);
    const grains = plan.groups[0]!.grains;
    expect(grains.map((g) => [g.grain, g.segment?.dimension ?? null, g.tests.length])).toEqual([
      ["day", null, 2],
      ["day", "country", 2],
    ]);
    // The totals read a warm-up window before their 40 + 2 days; the segments their window only.
    expect(grains.map((g) => g.buckets)).toEqual([82, 42]);
    const span = { start: 100 * DAY, end: 142 * DAY, step: DAY };
    const [query] = seriesQueries(plan.groups[0]!, grains[1]!, span, 100_000);
    const range = "`created_at` >= toDateTime(8640000) AND `created_at` < toDateTime(12268800)";
    const v = "ifNull(toString(`country`), '\\0null')";
    expect(query!.sql).toBe(
      `SELECT toUInt32((intDiv(toUInt32(toDateTime(\`created_at\`)), 86400) * 86400)) AS b, ` +
        `if(${v} IN (SELECT ${v} FROM \`shop\`.\`orders\` WHERE ${range} GROUP BY ${v} ORDER BY count() DESC, ${v} LIMIT 3), ${v}, '\\0other') AS s, ` +
        `count() AS total, ifNull(sum(\`amount\`), 0) AS c1 FROM \`shop\`.\`orders\` WHERE ${range} GROUP BY b, s ORDER BY b, s`,
    );
  });
});

/** Rows of a segmented query: per day, per segment, its row count (and revenue 2 a row). */
function rowsOf(days: number, perDay: Record<string, (day: number) => number>): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (let d = 0; d < days; d++)
    for (const [s, n] of Object.entries(perDay)) if (n(d) > 0) rows.push({ b: String(d * DAY), s, total: String(n(d)), c1: n(d) });
  return rows;
}

describe("segment series and their judgement", () => {
  const days = 42;
  const span = { start: 0, end: days * DAY, step: DAY };
  const outputs: SeriesOutput[] = [{ alias: "total", test_key: volume.key, part: "value", empty: 0 }];
  // DE: 1,400 a day, none on the last day; FR steady; NEW since 5 days; NULL; the rest folded.
  const rows = rowsOf(days, {
    DE: (d) => (d === days - 1 ? 0 : 1400 + (d % 7) * 10),
    FR: (d) => 700 + (d % 5) * 5,
    NEW: (d) => (d >= days - 5 ? (d === days - 1 ? 0 : 300) : 0),
    [NULL_SEGMENT]: (d) => 40 + (d % 3),
    [OTHER_SEGMENT]: (d) => 200 + (d % 4) * 3,
  });
  const series = readSegmentedSeries(span, [{ outputs, rows }]);

  it("one series per segment; buckets before a value's first row are missing, not 0", () => {
    expect(series.segments!.map((s) => [s.other ? "(other)" : s.value, s.first])).toEqual([
      [null, 0],
      ["(other)", 0],
      ["DE", 0],
      ["FR", 0],
      ["NEW", days - 5],
    ]);
    const fresh = series.segments!.find((s) => s.value === "NEW")!.checks.get(volume.key)!.values;
    expect(Number.isNaN(fresh[days - 6]!)).toBe(true);
    expect([fresh[days - 5], fresh[days - 1]]).toEqual([300, 0]);
  });

  it("an unchanged table's segments follow the clock: shifted a bucket, the new one empty (0 rows), first rows kept in place", () => {
    const later = shiftSeries(series, { start: DAY, end: (days + 1) * DAY, step: DAY });
    const fresh = later.segments!.find((s) => s.value === "NEW")!;
    expect(fresh.first).toBe(days - 6);
    expect(fresh.checks.get(volume.key)!.values.at(-1)).toBe(0);
    expect(fresh.checks.get(volume.key)!.values.at(-2)).toBe(0);
    expect(fresh.checks.get(volume.key)!.values.at(-3)).toBe(300);
    expect(seriesCheckKeys(later)).toEqual(new Set([volume.key]));
  });

  it("in steps, pauses after each segment's series and ends with the same judgement", () => {
    const group = { timestamp: "created_at", kind: "datetime" } as const;
    const steps = judgeSegmentsSteps(volume, group, series, new Map());
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses += 1;
    expect(pauses).toBe(series.segments!.length);
    expect(step.value).toEqual(judgeSegments(volume, group, series, new Map()));
  });

  it("the segment that vanished is flagged by name, worst first; the new one learns and flags nothing", () => {
    const judged = judgeSegments(volume, { timestamp: "created_at", kind: "datetime" }, series, new Map());
    const last = new Date((days - 1) * DAY * 1000).toISOString().slice(0, 10);
    expect(judged.observation.outcome).toBe("measured");
    expect(judged.observation.rows_affected).toBe(1);
    expect(judged.observation.rows_total).toBe(2);
    expect(judged.observation.message).toMatch(
      new RegExp(`^country = 'DE': 1 of 2 days outside the expected range: ${last} had 0 rows, expected [\\d,]+ to [\\d,]+$`),
    );
    expect(judged.observation.sample_sql).toBe(
      `SELECT * FROM \`shop\`.\`orders\` WHERE (toString(\`country\`) = 'DE') AND \`created_at\` >= toDateTime(${(days - 1) * DAY}) AND \`created_at\` < toDateTime(${days * DAY}) ORDER BY \`created_at\` LIMIT 10`,
    );
    expect(judged.flagged.map((f) => [f.start.getTime() / 1000, f.measure])).toEqual([[(days - 1) * DAY, "count() where country = 'DE'"]]);
    const kept = seriesOf(judged.verdicts!);
    expect(kept[0]!.segment).toEqual({ dimension: "country", value: "DE", other: false });
    // NEW dropped to 0 on the last day too, but it is 5 days old: learning, never flagged.
    const fresh = kept.find((v) => v.segment?.value === "NEW")!;
    expect([...fresh.flags].some((f) => (f & 1) !== 0)).toBe(false);
    // A segment's chart keeps the detection span and 4 weeks of days before it, ending at the last bucket.
    const settings = (volume.probe as { settings: { detection_buckets: number } }).settings;
    for (const v of kept) {
      expect(v.value).toHaveLength(Math.min(days, settings.detection_buckets + SEGMENT_CHART_HISTORY.day));
      expect(v.start + (v.value.length - 1) * v.step).toBe((days - 1) * DAY * 1000);
    }
    // The stored text keeps every segment's series and its segment.
    const back = decodeVerdicts(volume.key, encodeVerdicts(judged.verdicts!));
    expect(seriesOf(back).map((v) => v.segment)).toEqual(kept.map((v) => v.segment));
    expect([...seriesOf(back)[0]!.value]).toEqual([...kept[0]!.value]);
  });

  it("several flagged: the worst first and how many more; the other segment's rows are the values not split out", () => {
    const more = rowsOf(days, {
      DE: (d) => (d === days - 1 ? 0 : 1400 + (d % 7) * 10),
      FR: (d) => (d === days - 1 ? 600 : 700 + (d % 5) * 5),
      [OTHER_SEGMENT]: (d) => (d === days - 1 ? 0 : 200 + (d % 4) * 3),
    });
    const judged = judgeSegments(
      volume,
      { timestamp: "created_at", kind: "datetime" },
      readSegmentedSeries(span, [{ outputs, rows: more }]),
      new Map(),
    );
    expect(judged.observation.message).toMatch(/^country = 'DE': .*; and 2 more segments$/);
    expect(segmentLabel({ dimension: "country", value: null, other: true })).toBe("country (other values)");
    expect(segmentLabel({ dimension: "country", value: null, other: false })).toBe("country IS NULL");
  });

  it("nothing flagged: every segment within its range, the learning ones counted", () => {
    const calm = rowsOf(days, { DE: (d) => 1400 + (d % 7) * 10, NEW: (d) => (d >= days - 5 ? 300 : 0) });
    const judged = judgeSegments(
      volume,
      { timestamp: "created_at", kind: "datetime" },
      readSegmentedSeries(span, [{ outputs, rows: calm }]),
      new Map(),
    );
    expect(judged.observation).toMatchObject({ outcome: "measured", rows_affected: 0, rows_total: 2 });
    expect(judged.observation.message).toBe(
      "rows within the expected range in the one segment by country; 1 learning (first seen less than 14 days ago)",
    );
  });
});
