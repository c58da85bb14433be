import { describe, expect, it } from "vitest";
import { inferCatalog, inferTests } from "../../src/infer/infer.js";
import { derived, structured, type LooseIR, anomalySettings } from "./fixtures.js";

const ON = anomalySettings({ training_buckets: 56, sensitivity: 3, seasonality: "auto" });
const F = "status = 'completed'";

const metric = (overrides: LooseIR = {}) =>
  structured({
    timestamp: "created_at",
    filter: F,
    filter_columns: ["status"],
    anomalies: ON,
    measures: [
      { alias: "revenue", function: "Sum", column: "amount" },
      { alias: "orders", function: "Count", column: null },
      { alias: "p95", function: "Percentile", column: "amount", percentile: 0.95 },
      { alias: "net", function: "Sum", column: null, expr: "amount - fee", expr_columns: ["amount", "fee"] },
    ],
    ...overrides,
  });

const anomalyTests = (ir = metric()) => inferTests(ir, [ir]).filter((t) => t.rule.endsWith("_anomaly"));

describe("anomaly rules", () => {
  it("volume_anomaly: rows per bucket of the metric's rows, named `rows`", () => {
    const [volume] = anomalyTests().filter((t) => t.rule === "volume_anomaly");
    expect(volume).toMatchObject({
      rule: "volume_anomaly",
      name: "rows per day (by created_at) are within their expected range",
      check: "count() by created_at per day, 56 training + 2 detection buckets, sensitivity 3, seasonality auto",
      severity: "MEDIUM",
      confidence: "medium",
      tolerance: 0.01,
      table: "shop.orders",
      filter: F,
      columns: [{ table: "shop.orders", column: "created_at" }],
      filter_columns: [{ table: "shop.orders", column: "status" }],
      probe: {
        type: "volume_series",
        timestamp: "created_at",
        settings: {
          grain: "day",
          training_buckets: 56,
          detection_buckets: 2,
          sensitivity: 3,
          seasonality: "auto",
          holidays: null,
          exclude: [],
        },
      },
      measure: "rows",
      sample_sql: "SELECT * FROM `shop`.`orders` WHERE (status = 'completed') ORDER BY `created_at` DESC LIMIT 10",
    });
  });

  it("metric_value_anomaly: one per measure with a value; a row count is the volume series", () => {
    const values = anomalyTests().filter((t) => t.rule === "metric_value_anomaly");
    expect(values.map((t) => [t.measure, t.check])).toEqual([
      ["revenue", "Sum(amount) by created_at per day, 56 training + 2 detection buckets, sensitivity 3, seasonality auto"],
      ["p95", "Percentile(0.95)(amount) by created_at per day, 56 training + 2 detection buckets, sensitivity 3, seasonality auto"],
      ["net", "Sum(amount - fee) by created_at per day, 56 training + 2 detection buckets, sensitivity 3, seasonality auto"],
    ]);
    expect(values[0]!.probe).toEqual({
      type: "value_series",
      timestamp: "created_at",
      settings: {
        grain: "day",
        training_buckets: 56,
        detection_buckets: 2,
        sensitivity: 3,
        seasonality: "auto",
        holidays: null,
        exclude: [],
      },
      measure: { function: "Sum", sql: "`amount`" },
    });
    expect(values[1]!.probe).toMatchObject({ measure: { function: "Percentile", sql: "`amount`", percentile: 0.95 } });
    expect(values[2]!.probe).toMatchObject({ measure: { function: "Sum", sql: "(amount - fee)" } });
    expect(values[2]!.columns).toEqual([
      { table: "shop.orders", column: "created_at" },
      { table: "shop.orders", column: "amount" },
      { table: "shop.orders", column: "fee" },
    ]);
  });

  it("freshness_anomaly: unfiltered, only without a declared freshness", () => {
    const [fresh] = anomalyTests().filter((t) => t.rule === "freshness_anomaly");
    expect(fresh).toMatchObject({
      name: "new rows land within the table's usual loading gap",
      check: "time since the last load (newer created_at or more rows) within the gaps between loads over 8w, sensitivity 4",
      filter: null,
      filter_columns: [],
      probe: { type: "load_cadence", timestamp: "created_at", window_seconds: 56 * 86_400, sensitivity: 4 },
      sample_sql: "SELECT max(`created_at`) AS newest, now() AS checked_at FROM `shop`.`orders` WHERE `created_at` <= now() + 300",
    });
    expect(anomalyTests(metric({ freshness_seconds: 3600 })).map((t) => t.rule)).not.toContain("freshness_anomaly");
  });

  it("severity high makes them HIGH; tolerances apply as a share of scored buckets", () => {
    const tests = anomalyTests(metric({ anomalies: { ...ON, severity: "high" }, tolerances: { volume_anomaly: 0.1 } }));
    expect(new Set(tests.map((t) => t.severity))).toEqual(new Set(["HIGH"]));
    expect(tests.find((t) => t.rule === "volume_anomaly")!.tolerance).toBe(0.1);
    expect(tests.find((t) => t.rule === "metric_value_anomaly")!.tolerance).toBe(0);
  });

  it("none without a timestamp, when switched off, or for settings the IR does not carry", () => {
    expect(anomalyTests(metric({ timestamp: null }))).toEqual([]);
    expect(anomalyTests(metric({ anomalies: { ...ON, enabled: false } }))).toEqual([]);
    expect(anomalyTests(metric({ anomalies: null }))).toEqual([]);
  });

  it("different settings are different checks; equal ones are one check however the measure is named", () => {
    const a = metric({ name: "a" });
    const b = metric({ name: "b", measures: [{ alias: "total", function: "Sum", column: "amount" }] });
    const c = metric({ name: "c", anomalies: { ...ON, grain: "hour", training_buckets: 672 } });
    const tests = inferCatalog([a, b, c]).filter((t) => t.rule.endsWith("_anomaly"));
    const key = (metricName: string, rule: string, measure?: string) =>
      tests.find((t) => t.metric === metricName && t.rule === rule && (measure === undefined || t.measure === measure))!.key;
    expect(key("a", "volume_anomaly")).toBe(key("b", "volume_anomaly"));
    expect(key("a", "metric_value_anomaly", "revenue")).toBe(key("b", "metric_value_anomaly", "total"));
    expect(key("a", "volume_anomaly")).not.toBe(key("c", "volume_anomaly"));
    // 56 days and 672 hours are different windows: the cadences are learnt separately.
    expect(key("a", "freshness_anomaly")).not.toBe(key("c", "freshness_anomaly"));
  });

  it("a derived metric inherits them, measures named after their input", () => {
    const base = metric();
    const ratio = derived("ratio", ["gross_revenue"]);
    const inherited = inferTests(ratio, [base, ratio]).filter((t) => t.rule.endsWith("_anomaly"));
    expect(inherited.map((t) => t.measure)).toEqual([
      "gross_revenue.rows",
      "gross_revenue.revenue",
      "gross_revenue.p95",
      "gross_revenue.net",
      undefined,
    ]);
    expect(inherited.every((t) => t.metric === "ratio" && t.name.startsWith("gross_revenue: "))).toBe(true);
  });
});
