// The MetricFlow reader on a dbt project's model files (semantic_models: / metrics: lists
// beside models:, sources:, saved_queries:, groups:): definitions, joins, filters, dbt tests.
import { describe, expect, it } from "vitest";
import { parseCatalog } from "../../../src/catalog/parse-catalog.js";
import type { DerivedMetricDefinition, StructuredMetricDefinition } from "../../../src/catalog/types.js";
import { compileCatalog } from "../../../src/compile/compile.js";
import { SCHEMA, SEMANTIC } from "./dbt-model-files.js";

const catalog = parseCatalog(
  [
    { file: "project/models/marts/schema.yml", content: SCHEMA },
    { file: "project/models/marts/semantic.yml", content: SEMANTIC },
  ],
  { metricflowDatabase: "analytics" },
);
const byName = new Map(catalog.metrics.map((m) => [m.name, m]));
const structured = (name: string) => byName.get(name) as StructuredMetricDefinition;

describe("MetricFlow reader: a dbt project's model files", () => {
  it("reads every metric; an unsupported construct is an error naming the file, the metric and the construct", () => {
    expect(catalog.errors).toEqual([
      {
        metric: "daily_active_orders",
        file: "project/models/marts/semantic.yml",
        message: expect.stringMatching(
          /^project\/models\/marts\/semantic\.yml: metric "daily_active_orders": unsupported: filter .*Metric\(\) in a filter grouped by/,
        ),
      },
    ]);
    expect([...byName.keys()].sort()).toEqual(
      [
        "big_customer_orders",
        "conversion_rate",
        "net_revenue",
        "new_customer_revenue",
        "orders_placed",
        "p90_order",
        "per_customer_orders",
        "recent_orders",
        "revenue_growth",
        "revenue_per_order",
        "running_revenue",
      ].sort(),
    );
    // The one unsupported dbt test is named, not silently dropped.
    expect(catalog.warnings.map((w) => w.message)).toEqual([
      expect.stringContaining("analytics.orders.status: dbt test dbt_utils.not_empty_string is not run"),
      // A metric switched off and a measure no metric reads (it gets no tests): said too.
      "project/models/marts/semantic.yml: metrics[7] (switched_off): switched off (config.enabled: false): not read",
      'project/models/marts/semantic.yml: semantic model "orders": measure median_amount is read by no metric (not tested)',
    ]);
  });

  it("resolves ref() and node_relation ($source_schema) to ClickHouse tables in METRICFLOW_DATABASE", () => {
    expect(structured("new_customer_revenue").table).toBe("analytics.orders");
    expect(structured("new_customer_revenue").joins.map((j) => j.table)).toEqual(["analytics.dim_customers", "geo.regions"]);
  });

  it("turns entities into joins, multi-hop included, and joined filters into semi-joins", () => {
    const metric = structured("new_customer_revenue");
    expect(metric.joins).toEqual([
      {
        table: "analytics.dim_customers",
        type: "left",
        from: "analytics.orders",
        column: "customer_id",
        references: "id",
        relationship: "many_to_one",
      },
      {
        table: "geo.regions",
        type: "left",
        from: "analytics.dim_customers",
        column: "region_id",
        references: "id",
        relationship: "many_to_one",
      },
    ]);
    expect(metric.filter).toBe(
      "(toString(customer_id) IN (SELECT toString(id) FROM `analytics`.`dim_customers` WHERE customer_type = 'new')) AND " +
        "(toString(customer_id) IN (SELECT toString(id) FROM `analytics`.`dim_customers` WHERE toString(region_id) IN (SELECT toString(id) FROM `geo`.`regions` WHERE segment = 'smb')))",
    );
    expect(metric.primary_key).toBe("id");
    expect(metric.timestamp).toBe("ordered_at");
    expect(metric.dimensions.map((d) => [d.name, d.column, d.expr, d.table ?? null])).toEqual([
      ["ordered_at", "ordered_at", null, null],
      ["status", "status", null, null],
      ["is_large", null, "amount > 100", null],
      ["customer__customer_type", "customer_type", null, "analytics.dim_customers"],
      ["customer__region__segment", "segment", null, "geo.regions"],
    ]);
    expect(metric.source).toEqual({ format: "metricflow", file: "project/models/marts/semantic.yml" });
  });

  it("renders TimeDimension (metric_time at a grain) and Entity, ANDs a filter list, keeps MetricFlow semantics", () => {
    const metric = structured("recent_orders");
    expect(metric.filter).toBe("(toStartOfMonth(toDateTime(ordered_at)) >= '2024-01-01') AND (customer_id IS NOT NULL)");
    expect(metric.measures).toEqual([{ alias: "order_count", function: "Count", column: null, expr: "1" }]);
    expect(metric.metricflow).toMatchObject({ type: "simple", fill_nulls_with: 0, join_to_timespine: true, semantic_model: "orders" });
  });

  it("renders Metric() per entity as a subquery on the metric's model, its own filter inside", () => {
    expect(structured("per_customer_orders").filter).toBe(
      "toString(customer_id) IN (SELECT toString(customer_id) FROM `analytics`.`orders` GROUP BY customer_id HAVING count((1)) > 2)",
    );
    expect(structured("big_customer_orders").filter).toBe(
      "toString(customer_id) IN (SELECT toString(customer_id) FROM `analytics`.`orders` WHERE " +
        structured("new_customer_revenue").filter +
        " GROUP BY customer_id HAVING sum(amount) >= 1000)",
    );
  });

  it("maps every aggregation, expr and percentile", () => {
    expect(structured("net_revenue").measures).toEqual([
      { alias: "net_revenue", function: "Sum", column: null, expr: "amount - discount" },
    ]);
    expect(structured("p90_order").measures).toEqual([
      { alias: "p90_amount", function: "Percentile", column: "amount", expr: null, percentile: 0.9 },
    ]);
    expect(structured("conversion_rate").measures.map((m) => m.function)).toEqual(["Count", "SumBoolean"]);
    expect(structured("running_revenue").metricflow).toMatchObject({ type: "cumulative", window: "7 days", period_agg: "first" });
  });

  it("makes ratio and derived metrics derived ones, the same input twice kept once, input filters rendered", () => {
    const ratio = byName.get("revenue_per_order") as DerivedMetricDefinition;
    expect(ratio).toMatchObject({
      kind: "derived",
      inputs: ["new_customer_revenue", "recent_orders"],
      expression: "new_customer_revenue / recent_orders",
    });
    expect((ratio.metricflow!.inputs as { filter_sql?: string }[])[1]!.filter_sql).toBe("status = 'placed'");
    const growth = byName.get("revenue_growth") as DerivedMetricDefinition;
    expect(growth.inputs).toEqual(["new_customer_revenue"]);
    expect(growth.metricflow).toMatchObject({
      inputs: [{ name: "new_customer_revenue" }, { name: "new_customer_revenue", offset_window: "7 days" }],
    });
  });

  it("attaches the dbt column tests to every metric that reads the table", () => {
    const tests = structured("new_customer_revenue").declared_tests;
    expect(tests.map((t) => [t.kind, t.table, t.column, t.severity])).toEqual([
      ["unique", "analytics.orders", "id", "error"],
      ["not_null", "analytics.orders", "id", "error"],
      ["relationships", "analytics.orders", "customer_id", "error"],
      ["accepted_values", "analytics.orders", "status", "warn"],
    ]);
    expect(tests[2]!.to).toEqual({ table: "analytics.customers", column: "id" });
    expect(tests[3]!.values).toEqual(["placed", "shipped"]);
  });

  it("compiles to the IR our own format compiles to, with the source recorded", () => {
    const ir = compileCatalog(catalog.metrics).find((m) => m.name === "new_customer_revenue")!;
    expect(ir).toMatchObject({
      kind: "structured",
      table: "analytics.orders",
      source: { format: "metricflow" },
      filter_columns: ["customer_id"],
    });
    expect(ir.joins[1]).toMatchObject({
      table: "geo.regions",
      from_table: "analytics.dim_customers",
      left_column: "region_id",
      right_column: "id",
    });
  });

  it("names unknown measures, entities and dimensions as errors", () => {
    const bad = parseCatalog([
      {
        file: "p/a.yml",
        content: SEMANTIC.replace("customer__customer_type", "customer__nope").replace(
          "{ measure: p90_amount }",
          "{ measure: p99_amount }",
        ),
      },
    ]);
    const messages = bad.errors.map((e) => e.message);
    expect(messages).toContainEqual(
      expect.stringMatching(/metric "new_customer_revenue": filter .*customer__nope.*no semantic model reachable/),
    );
    expect(messages).toContainEqual('p/a.yml: metric "p90_order": type_params.measure: unknown measure p99_amount');
  });

  it("names a measure or dimension outside the identifier pattern (the API's and the feedback's) as the metric's error", () => {
    const bad = parseCatalog([
      {
        file: "p/a.yml",
        content: SEMANTIC.replace("{ name: p90_amount,", '{ name: "p90 amount\u202E",')
          .replace("{ measure: p90_amount }", '{ measure: "p90 amount\u202E" }')
          .replace("{ name: is_large, type: categorical,", '{ name: "is-large", type: categorical,'),
      },
    ]);
    const messages = bad.errors.map((e) => e.message);
    expect(messages).toContainEqual(
      'p/a.yml: metric "p90_order": measure "p90 amount\u202e" is not an identifier ([A-Za-z_][A-Za-z0-9_]*, at most 128 characters): rename it',
    );
    expect(messages).toContainEqual(
      expect.stringMatching(/^p\/a\.yml: metric "orders_placed": dimension "is-large" is not an identifier .*: rename it$/),
    );
    expect(bad.metrics.map((m) => m.name)).not.toContain("p90_order");
  });
});
