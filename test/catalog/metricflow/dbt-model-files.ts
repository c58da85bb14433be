// A dbt project's model files (schema.yml beside a semantic-layer file): shared by the
// reader's tests and the compile snapshot.

export const SCHEMA = `
version: 2
models:
  - name: orders
    columns:
      - name: id
        tests: [unique, not_null]
      - name: customer_id
        data_tests:
          - relationships: { to: ref('customers'), field: id }
      - name: status
        tests:
          - accepted_values: { values: [placed, shipped], config: { severity: warn } }
          - dbt_utils.not_empty_string
groups:
  - name: finance
    owner: { name: Finance }
saved_queries:
  - name: weekly
    query_params: { metrics: [order_total] }
    exports: [{ name: weekly, config: { export_as: table } }]
`;

export const SEMANTIC = `
semantic_models:
  - name: orders
    model: ref('orders')
    defaults: { agg_time_dimension: ordered_at }
    entities:
      - { name: order_id, type: primary, expr: id }
      - { name: customer, type: foreign, expr: customer_id }
    dimensions:
      - { name: ordered_at, type: time, type_params: { time_granularity: day } }
      - { name: status, type: categorical }
      - { name: is_large, type: categorical, expr: "amount > 100" }
    measures:
      - { name: order_total, agg: sum, expr: amount }
      - { name: order_count, agg: count, expr: "1" }
      - { name: net_revenue, agg: sum, expr: "amount - discount", create_metric: true }
      - { name: p90_amount, agg: percentile, expr: amount, agg_params: { percentile: 0.9 } }
      - { name: median_amount, agg: median, expr: amount }
      - { name: large_orders, agg: sum_boolean, expr: is_large_flag }
  - name: customers
    node_relation: { schema_name: $source_schema, alias: dim_customers }
    entities:
      - { name: customer, type: primary, expr: id }
      - { name: region, type: foreign, expr: region_id }
    dimensions:
      - { name: customer_type, type: categorical }
      - { name: first_ordered_at, type: time, type_params: { time_granularity: day } }
  - name: regions
    node_relation: { schema_name: geo, alias: regions }
    entities: [{ name: region, type: primary, expr: id }]
    dimensions: [{ name: segment, type: categorical }]
metrics:
  - name: new_customer_revenue
    type: simple
    type_params: { measure: order_total }
    filter: "{{ Dimension('customer__customer_type') }} = 'new' and {{ Dimension('order_id__customer__region__segment') }} = 'smb'"
  - name: recent_orders
    type: simple
    type_params: { measure: { name: order_count, fill_nulls_with: 0, join_to_timespine: true } }
    filter:
      - "{{ TimeDimension('metric_time', 'month') }} >= '2024-01-01'"
      - "{{ Entity('customer') }} IS NOT NULL"
  - name: revenue_per_order
    type: ratio
    type_params: { numerator: new_customer_revenue, denominator: { name: recent_orders, filter: "{{ Dimension('order_id__status') }} = 'placed'" } }
  - name: revenue_growth
    type: derived
    type_params:
      expr: new_customer_revenue - revenue_last_week
      metrics:
        - { name: new_customer_revenue }
        - { name: new_customer_revenue, offset_window: 7 days, alias: revenue_last_week }
  - name: running_revenue
    type: cumulative
    type_params: { measure: order_total, cumulative_type_params: { window: 7 days, period_agg: first } }
  - name: p90_order
    type: simple
    type_params: { measure: p90_amount }
  - name: conversion_rate
    type: conversion
    type_params:
      conversion_type_params: { base_measure: order_count, conversion_measure: large_orders, entity: customer, window: 7 days }
  - name: switched_off
    type: simple
    type_params: { measure: nope }
    config: { enabled: false }
  - name: per_customer_orders
    type: simple
    type_params: { measure: order_count }
    filter: "{{ Metric('orders_placed', group_by=['customer']) }} > 2"
  - name: orders_placed
    type: simple
    type_params: { measure: order_count }
  - name: daily_active_orders
    type: simple
    type_params: { measure: order_count }
    filter: "{{ Metric('order_count', group_by=['customer', 'metric_time']) }} > 2"
  - name: big_customer_orders
    type: simple
    type_params: { measure: order_count }
    filter: "{{ Metric('new_customer_revenue', group_by=['customer']) }} >= 1000"
`;
