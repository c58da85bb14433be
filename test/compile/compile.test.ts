import { describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/catalog/parse-catalog.js";
import { DEFAULT_FRESHNESS_SENSITIVITY, DEFAULT_SENSITIVITY, defaultAnomalySettings } from "../../src/anomaly/defaults.js";
import { DEFAULT_ANOMALY_DEFAULTS, FRESHNESS_SENSITIVITY, GRAIN_DEFAULTS } from "../../src/compile/anomaly-settings.js";
import { compileCatalog, compileMetric } from "../../src/compile/compile.js";
import { declaredNonNegative } from "../../src/compile/measure-hints.js";

const YAML = `metrics:
  - name: gross_revenue
    description: Revenue
    table: shop.orders
    timestamp: created_at
    freshness: 1d
    filter: "status = 'completed'"
    tolerances: { dimension_not_null: 0.2 }
    measures:
      - { alias: revenue, function: Sum, column: amount, non_negative: true }
      - { alias: orders, function: Count }
    dimensions:
      - { name: country, column: country }
      - { name: country2, column: country, table: shop.orders }
      - { name: segment, column: segment, table: shop.customers }
    joins:
      - { table: shop.customers, type: inner, on: { column: customer_id, references: id }, relationship: one_to_one }
  - name: ratio
    kind: derived
    description: A ratio
    inputs: [gross_revenue]
`;

const definitions = parseCatalog([{ file: "metrics/shop.yaml", content: YAML }]).metrics;

describe("compileMetric", () => {
  it("renders boolean literals of filters and expressions as 1 and 0, strings kept (ClickHouse 18.16 has no true/false)", () => {
    const yaml = `metrics:
  - name: food_revenue
    table: shop.orders
    filter: "is_food_order = true AND note != 'true'"
    measures:
      - { alias: revenue, function: Sum, expr: "if(is_refund = false, amount, 0)" }
    dimensions:
      - { name: food, expr: "is_food_order = TRUE" }
`;
    const ir = compileMetric(parseCatalog([{ file: "m.yaml", content: yaml }]).metrics[0]!);
    expect(ir.filter).toBe("is_food_order = 1 AND note != 'true'");
    expect(ir.filter_columns).toEqual(["is_food_order", "note"]);
    expect(ir.measures[0]).toMatchObject({ expr: "if(is_refund = 0, amount, 0)", expr_columns: ["is_refund", "amount"] });
    expect(ir.dimensions[0]).toMatchObject({ expr: "is_food_order = 1", expr_columns: ["is_food_order"] });
  });

  it("compiles a structured metric to the IR shape", () => {
    const ir = compileMetric(definitions[0]!);
    expect(ir).toEqual({
      name: "gross_revenue",
      kind: "structured",
      datasource: "default",
      measures: [
        { alias: "revenue", function: "Sum", column: "amount", expr: null, expr_columns: [], non_negative: true },
        { alias: "orders", function: "Count", column: null, expr: null, expr_columns: [] },
      ],
      dimensions: [
        { name: "country", source_table: null, column: "country", expr: null, expr_columns: [] },
        { name: "country2", source_table: null, column: "country", expr: null, expr_columns: [] },
        { name: "segment", source_table: "shop.customers", column: "segment", expr: null, expr_columns: [] },
      ],
      joins: [
        {
          table: "shop.customers",
          from_table: "shop.orders",
          type: "inner",
          left_column: "customer_id",
          right_column: "id",
          relationship: "one_to_one",
        },
      ],
      description: "Revenue",
      table: "shop.orders",
      primary_key: null,
      filter: "status = 'completed'",
      filter_columns: ["status"],
      timestamp: "created_at",
      freshness_seconds: 86_400,
      inputs: [],
      tolerances: { dimension_not_null: 0.2 },
      declared_tests: [],
      anomalies: {
        enabled: true,
        grain: "day",
        training_buckets: 84,
        detection_buckets: 2,
        sensitivity: 2.85,
        freshness_sensitivity: 4,
        seasonality: "auto",
        severity: "medium",
        holidays: null,
        exclude: [],
        segments: [],
        max_segments: 20,
      },
      source: { format: "ours", file: "metrics/shop.yaml" },
      metricflow: null,
      file: "metrics/shop.yaml",
    });
    expect(declaredNonNegative(ir.measures[0]!)).toBe(true);
    expect(declaredNonNegative(ir.measures[1]!)).toBeUndefined();
    expect(Object.keys(ir.measures[1]!)).toEqual(["alias", "function", "column", "expr", "expr_columns"]);
  });

  it("compiles a derived metric with empty structure and its inputs", () => {
    expect(compileMetric(definitions[1]!)).toEqual({
      name: "ratio",
      kind: "derived",
      datasource: "default",
      measures: [],
      dimensions: [],
      joins: [],
      description: "A ratio",
      table: null,
      primary_key: null,
      filter: null,
      filter_columns: [],
      timestamp: null,
      freshness_seconds: null,
      inputs: ["gross_revenue"],
      tolerances: {},
      declared_tests: [],
      anomalies: null,
      source: { format: "ours", file: "metrics/shop.yaml" },
      metricflow: null,
      file: "metrics/shop.yaml",
    });
  });

  it("resolves anomaly settings: the metric's block over the configured defaults over the grain's defaults", () => {
    const catalog = parseCatalog([
      {
        file: "a.yaml",
        content: `metrics:
  - { name: a, table: s.t, timestamp: ts, measures: [{ alias: n, function: Count }], anomalies: { grain: hour, sensitivity: 4.5, severity: high } }
  - { name: b, table: s.t, timestamp: ts, measures: [{ alias: n, function: Count }], anomalies: { enabled: false } }
  - { name: c, table: s.t, measures: [{ alias: n, function: Count }] }
  - { name: d, table: s.t, timestamp: ts, measures: [{ alias: n, function: Count }], anomalies: { training_buckets: 90, detection_buckets: 10000 } }
`,
      },
    ]);
    expect(catalog.errors).toEqual([]);
    const defaults = {
      enabled: true,
      grain: "day",
      training_buckets: null,
      detection_buckets: 3,
      sensitivity: 2.5,
      seasonality: "weekly",
      holidays: null,
      exclude: [],
    } as const;
    const [a, b, c, d] = compileCatalog(catalog.metrics, defaults).map((ir) => ir.anomalies);
    expect(a).toEqual({
      enabled: true,
      grain: "hour",
      training_buckets: 336,
      detection_buckets: 3,
      sensitivity: 4.5,
      freshness_sensitivity: 4.5,
      seasonality: "weekly",
      severity: "high",
      holidays: null,
      exclude: [],
      segments: [],
      max_segments: 20,
    });
    expect(b).toMatchObject({ enabled: false, grain: "day", training_buckets: 84 });
    // No timestamp: no series to read.
    expect(c).toMatchObject({ enabled: false });
    expect(d).toMatchObject({ enabled: true, training_buckets: 90, detection_buckets: 10_000, severity: "medium" });
    // Sensitivity left out everywhere: each rule's calibrated default.
    const calibrated = compileCatalog(catalog.metrics, { ...defaults, sensitivity: null }).map((x) => x.anomalies);
    expect(calibrated[0]).toMatchObject({ grain: "hour", sensitivity: 4.5 });
    expect(calibrated[1]).toMatchObject({ grain: "day", sensitivity: 2.85, freshness_sensitivity: 4 });
    // Switched off globally: off unless a metric says enabled: true (none here).
    const off = compileCatalog(catalog.metrics, { ...defaults, enabled: false }).map((ir) => ir.anomalies!.enabled);
    expect(off).toEqual([false, false, false, false]);
  });

  it("resolves holidays and exclusions: the metric's calendar over ANOMALY_HOLIDAYS, exclusions added to ANOMALY_EXCLUDE's", () => {
    const catalog = parseCatalog([
      {
        file: "a.yaml",
        content: `metrics:
  - { name: a, table: s.t, timestamp: ts, measures: [{ alias: n, function: Count }] }
  - { name: b, table: s.t, timestamp: ts, measures: [{ alias: n, function: Count }], anomalies: { holidays: gb, exclude: [{ from: 2026-12-24, to: 2026-12-27, reason: year-end freeze }] } }
  - { name: c, table: s.t, timestamp: ts, measures: [{ alias: n, function: Count }], anomalies: { holidays: none } }
`,
      },
    ]);
    expect(catalog.errors).toEqual([]);
    const migration = { from: "2026-11-01T00:00:00.000Z", to: "2026-11-02T00:00:00.000Z", reason: "warehouse migration" };
    const defaults = { ...DEFAULT_ANOMALY_DEFAULTS, holidays: "US", exclude: [migration] };
    const [a, b, c] = compileCatalog(catalog.metrics, defaults).map((ir) => ir.anomalies!);
    expect(a).toMatchObject({ holidays: "US", exclude: [migration] });
    expect(b).toMatchObject({
      holidays: "GB",
      exclude: [migration, { from: "2026-12-24T00:00:00.000Z", to: "2026-12-27T00:00:00.000Z", reason: "year-end freeze" }],
    });
    expect(c).toMatchObject({ holidays: null, exclude: [migration] });
    // Without defaults: nothing excluded.
    expect(compileCatalog(catalog.metrics).map((ir) => [ir.anomalies!.holidays, ir.anomalies!.exclude.length])).toEqual([
      [null, 0],
      ["GB", 1],
      [null, 0],
    ]);
  });

  it("compiles MetricFlow's config.meta.metric_reliability.anomalies holidays and exclusions the same way", () => {
    const project = `
semantic_models:
  - name: orders
    model: ref('orders')
    defaults: { agg_time_dimension: ordered_at }
    entities: [{ name: order_id, type: primary, expr: id }]
    dimensions:
      - { name: ordered_at, type: time, type_params: { time_granularity: day } }
    measures:
      - { name: order_total, agg: sum, expr: amount }
metrics:
  - name: total
    type: simple
    type_params: { measure: order_total }
    config:
      meta:
        metric_reliability:
          anomalies:
            holidays: FR
            exclude: [{ from: "2026-07-13T22:00:00Z", to: 2026-07-15, reason: fireworks outage }]
`;
    const catalog = parseCatalog([{ file: "p/project.yml", content: project }], { metricflowDatabase: "db" });
    expect(catalog.errors).toEqual([]);
    expect(compileCatalog(catalog.metrics)[0]!.anomalies).toMatchObject({
      enabled: true,
      holidays: "FR",
      exclude: [{ from: "2026-07-13T22:00:00.000Z", to: "2026-07-15T00:00:00.000Z", reason: "fireworks outage" }],
    });
    const bad = parseCatalog([{ file: "p/project.yml", content: project.replace("holidays: FR", "holidays: France") }], {
      metricflowDatabase: "db",
    });
    expect(bad.errors.map((e) => e.message)).toEqual([
      'p/project.yml: metric "total": config.meta.metric_reliability.anomalies.holidays: unknown holiday calendar "France": expected an ISO 3166 country code (US, GB, DE), optionally with a subdivision (DE-BY), or none',
    ]);
  });

  it("defaults the training span and sensitivity per grain as the anomaly stage is calibrated", () => {
    for (const grain of ["day", "hour"] as const) {
      expect(GRAIN_DEFAULTS[grain].sensitivity).toBe(DEFAULT_SENSITIVITY[grain]);
      expect(GRAIN_DEFAULTS[grain].training_buckets).toBe(defaultAnomalySettings(grain).training_buckets);
    }
    expect(FRESHNESS_SENSITIVITY).toBe(DEFAULT_FRESHNESS_SENSITIVITY);
  });

  it("keeps the catalogue order and does not share arrays with the definitions", () => {
    const irs = compileCatalog(definitions);
    expect(irs.map((ir) => ir.name)).toEqual(["gross_revenue", "ratio"]);
    irs[1]!.inputs.push("x");
    expect(definitions[1]).toMatchObject({ inputs: ["gross_revenue"] });
  });
});
