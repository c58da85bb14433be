import { describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/catalog/parse-catalog.js";
import { DEFAULT_FRESHNESS_SENSITIVITY, DEFAULT_SENSITIVITY, defaultAnomalySettings } from "../../src/anomaly/defaults.js";
import { FRESHNESS_SENSITIVITY, GRAIN_DEFAULTS } from "../../src/compile/anomaly-settings.js";
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
        sensitivity: 2.9,
        freshness_sensitivity: 4,
        seasonality: "auto",
        severity: "medium",
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
    });
    expect(b).toMatchObject({ enabled: false, grain: "day", training_buckets: 84 });
    // No timestamp: no series to read.
    expect(c).toMatchObject({ enabled: false });
    expect(d).toMatchObject({ enabled: true, training_buckets: 90, detection_buckets: 10_000, severity: "medium" });
    // Sensitivity left out everywhere: each rule's calibrated default.
    const calibrated = compileCatalog(catalog.metrics, { ...defaults, sensitivity: null }).map((x) => x.anomalies);
    expect(calibrated[0]).toMatchObject({ grain: "hour", sensitivity: 4.5 });
    expect(calibrated[1]).toMatchObject({ grain: "day", sensitivity: 2.9, freshness_sensitivity: 4 });
    // Switched off globally: off unless a metric says enabled: true (none here).
    const off = compileCatalog(catalog.metrics, { ...defaults, enabled: false }).map((ir) => ir.anomalies!.enabled);
    expect(off).toEqual([false, false, false, false]);
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
