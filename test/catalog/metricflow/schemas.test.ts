// The MetricFlow schemas through the reader: problems name the file, the resource and the
// field path; keys the reader does not use never become problems; one bad resource costs only
// itself; `config.meta` reaches the definition.
import { describe, expect, it } from "vitest";
import { MEASURE_FUNCTION, MF_AGGREGATIONS } from "../../../src/catalog/metricflow/aggregations.js";
import { parseCatalog } from "../../../src/catalog/parse-catalog.js";
import { MEASURE_FUNCTIONS } from "../../../src/catalog/types.js";

const MODELS = `
semantic_models:
  - name: orders
    model: ref('orders')
    defaults: { agg_time_dimension: ordered_at }
    entities: [{ name: order_id, type: primary, expr: id }]
    dimensions:
      - { name: ordered_at, type: time, type_params: { time_granularity: day } }
      - { name: status, type: categorical }
    measures:
      - { name: order_total, agg: sum, expr: amount }
      - { name: order_count, agg: count, expr: 1 }
`;

const read = (metrics: string, models = MODELS) =>
  parseCatalog([{ file: "p/project.yml", content: `${models}\nmetrics:\n${metrics}` }], { metricflowDatabase: "db" });
const messages = (catalog: ReturnType<typeof read>) => catalog.errors.map((e) => e.message);

describe("MetricFlow schemas", () => {
  it("map every MetricFlow aggregation onto one of our measure functions", () => {
    expect(Object.keys(MEASURE_FUNCTION).sort()).toEqual([...MF_AGGREGATIONS].sort());
    for (const agg of MF_AGGREGATIONS) expect(MEASURE_FUNCTIONS).toContain(MEASURE_FUNCTION[agg]);
  });

  it("name the field path of a semantic model's problem, counting the list as written", () => {
    const models = MODELS.replace(
      "      - { name: order_count, agg: count, expr: 1 }",
      "      - 5\n      - { name: order_count, agg: avg, expr: 1 }\n      - { name: order_d, agg: max, expr: x, description: 7 }\n      - { name: order_p, agg: percentile, expr: x }",
    );
    expect(messages(read("  - { name: total, type: simple, type_params: { measure: order_total } }", models))).toEqual([
      'p/project.yml: semantic model "orders": measures[1]: expected a mapping with a name',
      'p/project.yml: semantic model "orders": measures[2].agg: expected one of sum|sum_boolean|count|count_distinct|average|min|max|median|percentile',
      'p/project.yml: semantic model "orders": measures[3].description: expected a string',
      'p/project.yml: semantic model "orders": measures[4].agg_params.percentile: required for agg percentile',
      'p/project.yml: metric "total": type_params.measure: measure order_total is in an invalid semantic model (see its errors)',
    ]);
  });

  it("name the field path of a metric's problems, each as an error of that metric only", () => {
    const catalog = read(`
  - { name: ok, type: simple, type_params: { measure: order_total } }
  - { name: two_problems, type: derived, description: [x], type_params: { metrics: [] } }
  - { name: bad_input, type: ratio, type_params: { numerator: ok, denominator: { name: ok, filter: 5 } } }
  - { name: bad_type, type: sum, type_params: { measure: order_total } }
  - { name: also_ok, type: ratio, type_params: { numerator: ok, denominator: { name: ok, filter: "{{ Dimension('order_id__status') }} = 'x'" } } }`);
    expect(catalog.errors).toEqual([
      { metric: "two_problems", file: "p/project.yml", message: 'p/project.yml: metric "two_problems": description: expected a string' },
      {
        metric: "two_problems",
        file: "p/project.yml",
        message: 'p/project.yml: metric "two_problems": type_params.metrics: a derived metric needs input metrics',
      },
      {
        metric: "two_problems",
        file: "p/project.yml",
        message: 'p/project.yml: metric "two_problems": type_params.expr: required for a derived metric',
      },
      {
        metric: "bad_input",
        file: "p/project.yml",
        message: 'p/project.yml: metric "bad_input": type_params.denominator.filter: expected a string or a list of strings',
      },
      {
        metric: "bad_type",
        file: "p/project.yml",
        message: 'p/project.yml: metric "bad_type": type: expected one of simple|ratio|derived|cumulative|conversion',
      },
    ]);
    expect(catalog.metrics.map((m) => m.name)).toEqual(["ok", "also_ok"]);
  });

  it("accept keys the reader does not use, and empty (null) optional fields, without a word", () => {
    const models = `
semantic_models:
  - name: orders
    label: Orders
    description:
    model: ref('orders')
    config: { meta: { owner: finance }, group: sales }
    defaults: { agg_time_dimension: ordered_at }
    entities: [{ name: order_id, type: primary, expr: id, label: Order, role: r }]
    dimensions: [{ name: ordered_at, type: time, is_partition: true, type_params: { time_granularity: day, validity_params: {} } }]
    measures: [{ name: order_total, agg: sum, expr: amount, label: T, agg_time_dimension:, create_metric_display_name: T }]
`;
    const catalog = read(
      "  - { name: total, label: Total, group: sales, type: simple, description:, filter:, type_params: { measure: { name: order_total, alias: t } } }",
      models,
    );
    expect(catalog.errors).toEqual([]);
    expect(catalog.metrics.map((m) => [m.name, m.description])).toEqual([["total", null]]);
  });

  it("pass a metric's config.meta through to its definition, structured or derived", () => {
    const meta = "{ owner: finance, metric_reliability: { anomalies: { sensitivity: 5 } } }";
    const catalog = read(`
  - { name: total, type: simple, config: { meta: ${meta} }, type_params: { measure: order_total } }
  - { name: per_order, type: ratio, config: { enabled: true, meta: { owner: ops } }, type_params: { numerator: total, denominator: count } }
  - { name: count, type: simple, type_params: { measure: order_count } }`);
    expect(catalog.errors).toEqual([]);
    const byName = new Map(catalog.metrics.map((m) => [m.name, m]));
    expect(byName.get("total")!.meta).toEqual({ owner: "finance", metric_reliability: { anomalies: { sensitivity: 5 } } });
    expect(byName.get("per_order")!.meta).toEqual({ owner: "ops" });
    expect(byName.get("count")).not.toHaveProperty("meta");
    expect(messages(read("  - { name: total, type: simple, config: { meta: [1] }, type_params: { measure: order_total } }"))).toEqual([
      'p/project.yml: metric "total": config.meta: expected a mapping',
    ]);
  });

  it("read config.meta.metric_reliability.anomalies with the anomalies schema of our own format", () => {
    const catalog = read(`
  - { name: total, type: simple, config: { meta: { metric_reliability: { anomalies: { grain: hour, detection_buckets: 24, severity: high } } } }, type_params: { measure: order_total } }
  - { name: count, type: simple, type_params: { measure: order_count } }`);
    expect(catalog.errors).toEqual([]);
    const byName = new Map(catalog.metrics.map((m) => [m.name, m]));
    expect(byName.get("total")).toMatchObject({ anomalies: { grain: "hour", detection_buckets: 24, severity: "high" } });
    expect(byName.get("count")).not.toHaveProperty("anomalies");
    const bad = (anomalies: string) =>
      messages(
        read(
          `  - { name: total, type: simple, config: { meta: { metric_reliability: ${anomalies} } }, type_params: { measure: order_total } }`,
        ),
      );
    expect(bad("{ anomalies: { sensitivity: high } }")).toEqual([
      'p/project.yml: metric "total": config.meta.metric_reliability.anomalies.sensitivity: expected a number',
    ]);
    expect(bad("{ anomalies: { grain: week } }")).toEqual([
      'p/project.yml: metric "total": config.meta.metric_reliability.anomalies.grain: expected one of hour|day',
    ]);
    expect(bad("{ anomaly: {} }")).toEqual(['p/project.yml: metric "total": config.meta.metric_reliability: Unrecognized key: "anomaly"']);
    const noTime = MODELS.replace("    defaults: { agg_time_dimension: ordered_at }\n", "");
    expect(
      messages(
        read(
          "  - { name: total, type: simple, config: { meta: { metric_reliability: { anomalies: {} } } }, type_params: { measure: order_total } }",
          noTime,
        ),
      ),
    ).toEqual(['p/project.yml: metric "total": config.meta.metric_reliability.anomalies: needs an agg_time_dimension (or enabled: false)']);
  });

  it("refuse a filter over a metric that failed its schema instead of rendering it half-read", () => {
    const catalog = read(`
  - { name: broken, type: simple, filter: 5, type_params: { measure: order_count } }
  - { name: per_busy, type: simple, filter: "{{ Metric('broken', group_by=['order_id']) }} > 1", type_params: { measure: order_total } }
  - { name: share, type: ratio, type_params: { numerator: { name: broken, filter: "{{ Dimension('order_id__status') }} = 'x'" }, denominator: broken } }`);
    expect(messages(catalog)).toEqual([
      'p/project.yml: metric "broken": filter: expected a string or a list of strings',
      `p/project.yml: metric "per_busy": Metric('broken') in a filter: broken is invalid (see its errors)`,
      'p/project.yml: metric "share": type_params.numerator: metric broken is invalid (see its errors)',
    ]);
  });

  it("report a resource list that is no list as the file's problem, and read the rest of the file", () => {
    const catalog = parseCatalog([
      {
        file: "p/a.yml",
        content: `semantic_models: { name: x }\nmetrics:\n  - { name: m, type: simple, type_params: { measure: order_total } }\n`,
      },
      { file: "p/b.yml", content: MODELS },
    ]);
    expect(messages(catalog)).toEqual(["p/a.yml: semantic_models: expected a list"]);
    expect(catalog.metrics.map((m) => m.name)).toEqual(["m"]);
  });
});
