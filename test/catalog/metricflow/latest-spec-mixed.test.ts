// dbt's latest YAML spec beside the legacy one in one project (a project migrates file by file):
// every construct of the latest spec read into the same IR, metrics across both specs, and
// nothing under `models:` that names a semantic model or metric dropped without a message.
import { describe, expect, it } from "vitest";
import { parseCatalog } from "../../../src/catalog/parse-catalog.js";
import type { StructuredMetricDefinition } from "../../../src/catalog/types.js";

/** Legacy spec: customers (not migrated yet), with a metric of its own. */
const LEGACY = `
semantic_models:
  - name: customers
    model: ref('customers')
    defaults: { agg_time_dimension: signed_up_at }
    entities:
      - { name: customer, type: primary, expr: customer_id }
    dimensions:
      - { name: signed_up_at, type: time, type_params: { time_granularity: day } }
      - { name: region, type: categorical }
    measures:
      - { name: customer_count, agg: count_distinct, expr: customer_id }
metrics:
  - { name: customers, type: simple, type_params: { measure: customer_count } }
`;

/** Latest spec: orders, migrated. */
const LATEST = `
models:
  - name: orders
    description: one row per order
    semantic_model: true
    agg_time_dimension: ordered_at
    columns:
      - name: order_id
        entity: { type: primary, name: order }
      - name: customer_id
        entity: { type: foreign, name: customer }
      - name: ordered_at
        dimension: { type: time }
        granularity: day
      - name: status
        dimension: categorical
      - name: delivered_at
        granularity: day
    derived_semantics:
      dimensions:
        - { name: order_week, type: time, granularity: week, expr: "toStartOfWeek(ordered_at)" }
    metrics:
      - name: revenue
        type: simple
        agg: sum
        expr: amount
        filter: "{{ Dimension('order__status') }} != 'cancelled'"
      - name: p90_order_value
        type: simple
        agg: percentile
        expr: amount
        percentile: 0.9
        percentile_type: discrete
      - name: open_balance
        type: simple
        agg: sum
        expr: balance
        agg_params: { percentile: null }
        non_additive_dimension: { name: ordered_at, window_agg: max }
      - name: order_count
        type: simple
        agg: count
        expr: order_id
  - name: refunds
    semantic_model: { enabled: true, name: refund_events }
    primary_entity: refund
    columns:
      - { name: refund_id, entity: primary }
      - { name: refunded_at, dimension: { type: time, name: refund_time }, granularity: day }
      - { name: order_id, entity: { type: foreign, name: order } }
    agg_time_dimension: refund_time
    metrics:
      - { name: refund_count, type: simple, agg: count, expr: refund_id }
  - name: staging_orders
    description: a dbt model that is no semantic model
    columns: [{ name: id }]
metrics:
  - name: revenue_per_customer
    type: ratio
    numerator: revenue
    denominator: customers
  - name: refund_rate
    type: ratio
    numerator: refund_count
    denominator: { name: order_count }
    filter: "{{ Dimension('order__status') }} = 'delivered'"
  - name: net_orders
    type: derived
    expr: orders - refunds
    input_metrics: [{ name: order_count, alias: orders }, { name: refund_count, alias: refunds }]
  - name: revenue_mtd
    type: cumulative
    input_metric: revenue
    grain_to_date: month
    period_agg: last
  - name: customers_running
    type: cumulative
    input_metric: customers
    window: 7 days
`;

/** What is not read, each with its message. */
const UNREAD = `
models:
  - name: archived_orders
    semantic_model: false
    metrics:
      - { name: archived_revenue, type: simple, agg: sum, expr: amount }
  - name: paused
    semantic_model: { enabled: false }
    agg_time_dimension: created_at
    columns: [{ name: created_at, dimension: time, granularity: day }]
  - name: forgotten
    columns: [{ name: id, entity: primary }]
    metrics:
      - { name: forgotten_count, type: simple, agg: count, expr: id }
  - name: configured_off
    semantic_model: { config: { enabled: false } }
    metrics:
      - { name: configured_off_count, type: simple, agg: count, expr: id }
  - name: broken
    semantic_model: yes please
    metrics:
      - { name: broken_count, type: simple, agg: count, expr: id }
metrics:
  - { name: orphan_total, type: simple, agg: sum, expr: amount }
  - { name: no_agg, type: ratio, numerator: revenue }
`;

const catalog = parseCatalog(
  [
    { file: "p/models/customers.yml", content: LEGACY },
    { file: "p/models/orders.yml", content: LATEST },
    { file: "p/models/unread.yml", content: UNREAD },
  ],
  { metricflowDatabase: "shop" },
);
const metric = (name: string) => catalog.metrics.find((m) => m.name === name)!;
const structured = (name: string) => metric(name) as StructuredMetricDefinition;

describe("the latest YAML spec beside the legacy one", () => {
  it("compiles every metric of both specs", () => {
    expect(catalog.metrics.map((m) => m.name).sort()).toEqual(
      [
        "customers",
        "customers_running",
        "net_orders",
        "open_balance",
        "order_count",
        "p90_order_value",
        "refund_count",
        "refund_rate",
        "revenue",
        "revenue_mtd",
        "revenue_per_customer",
      ].sort(),
    );
  });

  it("reads a model's semantic model from its columns: entities, dimensions, granularity, agg_time_dimension", () => {
    expect(structured("revenue")).toMatchObject({
      table: "shop.orders",
      primary_key: "order_id",
      timestamp: "ordered_at",
      filter: "status != 'cancelled'",
      measures: [{ alias: "revenue", function: "Sum", column: "amount", expr: null }],
      joins: [
        { table: "shop.customers", from: "shop.orders", column: "customer_id", references: "customer_id", relationship: "many_to_one" },
      ],
    });
    expect(structured("revenue").metricflow).toMatchObject({
      semantic_model: "orders",
      agg_time_dimension: "ordered_at",
      dimensions: [
        { name: "ordered_at", type: "time", time_granularity: "day" },
        { name: "status", type: "categorical" },
        { name: "order_week", type: "time", time_granularity: "week" },
      ],
      entities: [
        { name: "order", type: "primary", column: "order_id" },
        { name: "customer", type: "foreign", column: "customer_id" },
      ],
    });
    // semantic_model: { name } names the semantic model; the table is the model's.
    expect(structured("refund_count")).toMatchObject({ table: "shop.refunds", timestamp: "refunded_at", primary_key: "refund_id" });
    expect(structured("refund_count").metricflow).toMatchObject({ semantic_model: "refund_events", primary_entity: "refund" });
  });

  it("reads a simple metric's agg, expr, percentile and non_additive_dimension", () => {
    expect(structured("p90_order_value").measures).toEqual([
      { alias: "p90_order_value", function: "Percentile", column: "amount", expr: null, percentile: 0.9 },
    ]);
    expect(structured("p90_order_value").metricflow).toMatchObject({
      measures: [{ agg: "percentile", agg_params: { percentile: 0.9, use_discrete_percentile: true } }],
    });
    expect(structured("open_balance").metricflow).toMatchObject({
      measures: [{ agg: "sum", non_additive_dimension: { name: "ordered_at", window_agg: "max" } }],
    });
  });

  it("builds metrics over metrics of either spec", () => {
    expect(metric("revenue_per_customer")).toMatchObject({ kind: "derived", inputs: ["revenue", "customers"] });
    expect(metric("net_orders")).toMatchObject({
      kind: "derived",
      inputs: ["order_count", "refund_count"],
      expression: "orders - refunds",
    });
    // A cumulative metric over a latest-spec metric takes its measure and its filter...
    expect(structured("revenue_mtd")).toMatchObject({ table: "shop.orders", filter: "status != 'cancelled'" });
    expect(structured("revenue_mtd").metricflow).toMatchObject({ type: "cumulative", grain_to_date: "month", period_agg: "last" });
    // ...and over a legacy metric, the legacy measure.
    expect(structured("customers_running")).toMatchObject({ table: "shop.customers", measures: [{ alias: "customer_count" }] });
  });

  it("applies a ratio's filter to its numerator and denominator, as MetricFlow does", () => {
    const inputs = (metric("refund_rate").metricflow as { inputs: { name: string; filter_sql: string }[] }).inputs;
    expect(inputs.map((i) => [i.name, i.filter_sql])).toEqual([
      ["refund_count", expect.stringContaining("'delivered'")],
      ["order_count", "status = 'delivered'"],
    ]);
  });
});

describe("nothing under models: dropped in silence", () => {
  const errors = catalog.errors.map((e) => e.message);
  const warnings = catalog.warnings.map((w) => w.message);

  it("makes every metric that cannot compile an error naming its file and why", () => {
    expect(errors).toEqual(
      expect.arrayContaining([
        'p/models/unread.yml: metric "archived_revenue": models[0] (archived_orders) has semantic_model switched off (set semantic_model: true)',
        'p/models/unread.yml: metric "forgotten_count": models[2] (forgotten) has no semantic_model (set semantic_model: true)',
        "p/models/unread.yml: models[4] (broken): semantic_model: expected true, false or a mapping",
        'p/models/unread.yml: metric "configured_off_count": models[3] (configured_off) has semantic_model switched off (set semantic_model: true)',
        'p/models/unread.yml: metric "broken_count": its model\'s semantic_model is invalid',
        `p/models/unread.yml: metric "orphan_total": type_params.measure: required (legacy spec); in the latest spec a simple metric goes under its model's metrics: with agg`,
        'p/models/unread.yml: metric "no_agg": numerator and denominator: required for a ratio metric (type_params: in the legacy spec)',
      ]),
    );
    expect(catalog.errors.filter((e) => e.metric !== null).map((e) => e.metric)).toEqual(
      expect.arrayContaining(["archived_revenue", "forgotten_count", "broken_count", "orphan_total", "no_agg"]),
    );
  });

  it("warns of what a model declares and nothing reads", () => {
    expect(warnings).toEqual(
      expect.arrayContaining([
        "p/models/unread.yml: models[0] (archived_orders) has semantic_model switched off: semantic_model not read",
        "p/models/unread.yml: models[1] (paused) has semantic_model switched off: semantic_model, entity/dimension/granularity on 1 column(s), agg_time_dimension not read",
        "p/models/unread.yml: models[2] (forgotten) has no semantic_model: entity/dimension/granularity on 1 column(s) not read",
        "p/models/orders.yml: models[0] (orders): models[0].columns[4] (delivered_at): granularity without dimension: is not a dimension (add dimension: time)",
      ]),
    );
    // A dbt model that says nothing semantic is just a dbt model: no message.
    expect(warnings.some((w) => w.includes("staging_orders"))).toBe(false);
  });
});
