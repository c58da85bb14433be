// Small MetricFlow projects, each showing one construct or one mistake, for the compile
// snapshot: together they reach every message the reader can give (a schema problem, a
// semantic one, an unsupported construct) and the leniencies it keeps (unknown keys, dbt
// tests it does not run).

/** Two semantic models most cases build on. */
const BASE = `
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
    measures:
      - { name: order_total, agg: sum, expr: amount }
      - { name: order_count, agg: count, expr: 1 }
  - name: customers
    model: ref('customers')
    entities: [{ name: customer, type: primary, expr: id }]
    dimensions: [{ name: segment, type: categorical }]
    measures: [{ name: customer_count, agg: count_distinct, expr: id }]
`;

/** A metric on the base models that must keep compiling whatever else in the case is wrong. */
const GOOD = `
  - name: good_total
    type: simple
    type_params: { measure: order_total }
`;

const withMetrics = (metrics: string): Record<string, string> => ({ "p/base.yml": BASE, "p/metrics.yml": `metrics:${GOOD}${metrics}` });
const withModels = (models: string, metrics = ""): Record<string, string> => ({
  "p/base.yml": BASE,
  "p/models.yml": `semantic_models:${models}\nmetrics:${GOOD}${metrics}`,
});

/** case name -> files (name -> YAML) */
export const CASES: Record<string, Record<string, string>> = {
  // --- semantic models ---
  "model-not-a-mapping": withModels("\n  - 5\n  - [a, b]"),
  "model-without-name": withModels(
    "\n  - { model: ref('x'), measures: [{ name: nameless_total, agg: sum }] }",
    GOOD.replace("good_total", "x1").replace("order_total", "nameless_total"),
  ),
  "model-name-not-a-string": withModels("\n  - { name: 5, model: ref('x') }"),
  "model-relation": withModels(
    `
  - { name: not_ref, model: orders }
  - { name: no_alias, node_relation: { schema_name: x } }
  - { name: no_relation }
  - { name: bad_table, node_relation: { schema_name: a.b, alias: t } }
  - { name: bad_alias, node_relation: { alias: "t-1" } }
  - { name: from_source, model: "source('raw', 'orders')", measures: [{ name: raw_total, agg: sum, expr: amount }] }
  - { name: from_placeholder, model: "source('$schema', 'orders')", measures: [{ name: ph_total, agg: sum, expr: amount }] }
  - { name: from_package, model: "ref('pkg', 'orders')", measures: [{ name: pkg_total, agg: sum, expr: amount }] }
  - { name: schema_placeholder, node_relation: { schema_name: $source_schema, alias: t }, measures: [{ name: sp_total, agg: sum, expr: amount }] }`,
    `
  - { name: raw_total, type: simple, type_params: { measure: raw_total } }
  - { name: ph_total, type: simple, type_params: { measure: ph_total } }
  - { name: pkg_total, type: simple, type_params: { measure: pkg_total } }
  - { name: sp_total, type: simple, type_params: { measure: sp_total } }`,
  ),
  "model-lists-not-lists": withModels(`
  - { name: a, model: ref('a'), entities: 5 }
  - { name: b, model: ref('b'), dimensions: { x: 1 } }
  - { name: c, model: ref('c'), measures: "m" }
  - { name: d, model: ref('d'), entities: null, dimensions: null, measures: null }`),
  "model-entities": withModels(
    `
  - name: a
    model: ref('a')
    entities: [5, { type: primary }, { name: x, type: bogus }, { name: "bad-name", type: primary }, { name: y, type: foreign, expr: { a: 1 } }, { name: z, type: unique, expr: "id; drop" }]
  - name: b
    model: ref('b')
    entities: [{ name: k, type: natural, expr: 7 }, { name: t, type: unique, expr: true }]
    measures: [{ name: b_count, agg: count, expr: "1" }]`,
    `
  - { name: b_count, type: simple, type_params: { measure: b_count } }`,
  ),
  "model-dimensions": withModels(
    `
  - name: a
    model: ref('a')
    dimensions: [{ name: x, type: bogus }, { name: y }, { name: "z z", type: categorical }, { name: w, type: time, expr: "(ts" }]
  - name: b
    model: ref('b')
    defaults: { agg_time_dimension: ts }
    dimensions:
      - { name: ts, type: time, type_params: { time_granularity: hour, validity_params: { is_start: true } } }
      - { name: no_params, type: time }
      - { name: flag, type: categorical, expr: true, is_partition: false, label: Flag }
    measures: [{ name: b_total, agg: sum, expr: v }]
  - { name: c, model: ref('c'), dimensions: [{ name: odd_params, type: time, type_params: 5 }], measures: [{ name: c_total, agg: sum, expr: v }] }
  - { name: d, model: ref('d'), dimensions: [{ name: odd_grain, type: time, type_params: { time_granularity: 5 } }], measures: [{ name: d_total, agg: sum, expr: v }] }`,
    `
  - { name: b_total, type: simple, type_params: { measure: b_total } }
  - { name: c_total, type: simple, type_params: { measure: c_total } }
  - { name: d_total, type: simple, type_params: { measure: d_total } }`,
  ),
  "model-measures": withModels(
    `
  - name: a
    model: ref('a')
    measures: [{ name: m1, agg: SUM }, { name: m2, agg: bogus }, { name: m3 }, { name: m4, agg: percentile }, { name: m5, agg: percentile, agg_params: { percentile: "0.9" } }, { name: "m 6", agg: sum }]
  - name: b
    model: ref('b')
    measures:
      - { name: b2, agg: max, expr: true }
      - { name: b3, agg: median, non_additive_dimension: { name: ts, window_choice: min } }
      - { name: b4, agg: percentile, agg_params: { percentile: 0.25, use_approximate_percentile: true } }
      - { name: b5, agg: average, create_metric: true, description: " average b5 " }
      - { name: b6, agg: min, create_metric: true }
      - { name: b7, agg: sum_boolean, expr: flag, create_metric: true, label: B7, create_metric_display_name: B seven }
  - { name: c1, model: ref('c1'), measures: [{ name: b1, agg: sum, agg_params: 5 }] }
  - { name: c2, model: ref('c2'), measures: [{ name: c2_m, agg: max, description: 5, create_metric: true }] }
  - { name: c3, model: ref('c3'), measures: [{ name: c3_m, agg: max, agg_time_dimension: 7 }] }
  - { name: c4, model: ref('c4'), measures: [{ name: c4_m, agg: max, create_metric: "yes" }] }
  - { name: c5, model: ref('c5'), measures: [{ name: c5_m, agg: max, non_additive_dimension: 5 }] }`,
    `
  - { name: b1, type: simple, type_params: { measure: b1 } }
  - { name: b2, type: simple, type_params: { measure: b2 } }
  - { name: b3, type: simple, type_params: { measure: b3 } }
  - { name: b4, type: simple, type_params: { measure: b4 } }
  - { name: c3_m, type: simple, type_params: { measure: c3_m } }
  - { name: c5_m, type: simple, type_params: { measure: c5_m } }
  - { name: b6, type: simple, description: declared over the created one, type_params: { measure: b6 } }`,
  ),
  "model-odd-optional-fields": withModels(
    `
  - { name: a, model: ref('a'), description: 5, measures: [{ name: a_total, agg: sum, expr: v }] }
  - { name: a2, model: ref('a2'), primary_entity: 7, measures: [{ name: a2_total, agg: sum, expr: v }] }
  - { name: a3, model: ref('a3'), defaults: 5, measures: [{ name: a3_total, agg: sum, expr: v }] }
  - { name: a4, model: 5, node_relation: { alias: t, schema_name: 5 }, measures: [{ name: a4_total, agg: sum, expr: v }] }
  - { name: a5, node_relation: [1], measures: [{ name: a5_total, agg: sum, expr: v }] }
  - { name: b, model: ref('b'), defaults: { agg_time_dimension: 5 }, measures: [{ name: b_total, agg: sum, expr: v }] }
  - { name: c, model: ref('c'), primary_entity: thing, description: " C ", label: C, config: { meta: { owner: x } }, measures: [{ name: c_total, agg: sum, expr: v }] }`,
    `
  - { name: a_total, type: simple, type_params: { measure: a_total } }
  - { name: a2_total, type: simple, type_params: { measure: a2_total } }
  - { name: a3_total, type: simple, type_params: { measure: a3_total } }
  - { name: a4_total, type: simple, type_params: { measure: a4_total } }
  - { name: a5_total, type: simple, type_params: { measure: a5_total } }
  - { name: b_total, type: simple, type_params: { measure: b_total } }
  - { name: c_total, type: simple, type_params: { measure: c_total } }`,
  ),
  "model-many-problems": withModels(
    `
  - name: a
    entities: [5, { name: x, type: bogus }]
    dimensions: [{ name: d, type: bogus }]
    measures: [{ name: m, agg: bogus }, { name: a_ok, agg: sum }]`,
    `
  - { name: a_ok, type: simple, type_params: { measure: a_ok } }`,
  ),
  "model-duplicates": {
    "p/a.yml": `semantic_models:
  - { name: orders, model: ref('orders'), measures: [{ name: total, agg: sum, expr: amount }, { name: shared, agg: sum }] }
  - { name: orders, model: ref('orders2'), measures: [{ name: other, agg: sum }] }
  - { name: refunds, model: ref('refunds'), measures: [{ name: shared, agg: sum }] }
metrics:
  - { name: total, type: simple, type_params: { measure: total } }
  - { name: other, type: simple, type_params: { measure: other } }
  - { name: shared, type: simple, type_params: { measure: shared } }
`,
  },
  "model-disabled-and-broken": {
    "p/a.yml": `semantic_models:
  - { name: orders, model: ref('orders'), config: { enabled: false }, measures: [{ name: off_total, agg: sum }] }
  - { name: broken, model: nope, measures: [{ name: broken_total, agg: sum }, 5, { agg: sum }] }
  - { name: fine, model: ref('fine'), config: { enabled: true }, measures: [{ name: fine_total, agg: sum }] }
metrics:
  - { name: off_total, type: simple, type_params: { measure: off_total } }
  - { name: broken_total, type: simple, type_params: { measure: broken_total } }
  - { name: fine_total, type: simple, type_params: { measure: fine_total } }
`,
  },
  documents: {
    "p/one.yaml": `semantic_model:
  name: orders
  node_relation: { schema_name: shop, alias: orders }
  measures: [{ name: total, agg: sum, expr: amount }]
---
metric:
  name: total
  type: simple
  type_params: { measure: total }
---
- not
- a mapping
---
metric: 5
---
semantic_model: 5
---
metric:
  name: off
  type: simple
  type_params: { measure: total }
  config: { enabled: false }
---
saved_query:
  name: weekly
  query_params: { metrics: [total] }
---
project_configuration:
  time_spine_table_configurations: [{ location: x.y, column_name: ds, grain: day }]
`,
    "p/lists.yml": `semantic_models: 5
metrics: { name: x }
saved_queries: 5
models: 5
sources: { name: raw }
`,
    "p/more.yml": `saved_queries: [{ name: q, query_params: { metrics: [total], where: ["{{ Dimension('x') }}"] } }]
exports: []
version: 2
`,
  },

  // --- metrics ---
  "metric-names-and-types": withMetrics(`
  - 5
  - { type: simple, type_params: { measure: order_total } }
  - { name: 7, type: simple, type_params: { measure: order_total } }
  - { name: Bad-Name, type: simple, type_params: { measure: order_total } }
  - { name: no_type, type_params: { measure: order_total } }
  - { name: bogus_type, type: bogus, type_params: { measure: order_total } }
  - { name: number_type, type: 5, type_params: { measure: order_total } }
  - { name: upper_type, type: SIMPLE, type_params: { measure: order_total } }
  - { name: both_bad_type, type: bogus }
  - { name: label_and_more, type: simple, label: L, description: " described ", time_granularity: month, config: { meta: { owner: x, metric_reliability: { anomalies: { enabled: true } } } }, type_params: { measure: order_total } }
  - { name: create_flag, type: simple, create_metric: true, type_params: { measure: order_total } }
  - { name: description_number, type: simple, description: 5, type_params: { measure: order_total } }
  - { name: config_odd, type: simple, config: 5, type_params: { measure: order_total } }
  - { name: meta_odd, type: simple, config: { meta: 5 }, type_params: { measure: order_total } }
  - { name: granularity_odd, type: simple, time_granularity: 5, type_params: { measure: order_total } }
  - { name: create_odd, type: simple, create_metric: "yes", type_params: { measure: order_total } }
  - { name: no_params, type: simple }
  - { name: params_not_mapping, type: simple, type_params: 5 }`),
  "metric-duplicates": {
    ...withMetrics(`
  - { name: good_total, type: simple, type_params: { measure: order_count } }`),
    "p/ours.yaml": "metrics:\n  - name: ours_total\n    table: shop.orders\n    measures: [{ alias: n, function: Count }]\n",
    "p/z.yml": "metrics:\n  - { name: ours_total, type: simple, type_params: { measure: order_total } }\n",
  },
  "metric-filters": withMetrics(`
  - { name: f_number, type: simple, filter: 5, type_params: { measure: order_total } }
  - { name: f_mixed, type: simple, filter: ["{{ Dimension('order_id__status') }} = 'x'", 5], type_params: { measure: order_total } }
  - { name: f_null, type: simple, filter: null, type_params: { measure: order_total } }
  - { name: f_list, type: simple, filter: ["{{ Dimension('order_id__status') }} = 'x'", "{{ Dimension('customer__segment') }} = 'smb'"], type_params: { measure: order_total } }
  - { name: f_unknown_dim, type: simple, filter: "{{ Dimension('order_id__nope') }} = 1", type_params: { measure: order_total } }
  - { name: f_unknown_entity, type: simple, filter: "{{ Dimension('nope__segment') }} = 1", type_params: { measure: order_total } }
  - { name: f_jinja, type: simple, filter: "{% if x %}1{% endif %}", type_params: { measure: order_total } }
  - { name: f_unsafe, type: simple, filter: "{{ Dimension('order_id__status') }} = 'x' -- y", type_params: { measure: order_total } }
  - { name: f_grain, type: simple, filter: "{{ TimeDimension('metric_time', 'fortnight') }} > '2024-01-01'", type_params: { measure: order_total } }
  - { name: f_grain_method, type: simple, filter: "{{ Dimension('order_id__ordered_at').grain('week') }} > '2024-01-01'", type_params: { measure: order_total } }
  - { name: f_metric_time_none, type: simple, filter: "{{ TimeDimension('metric_time', 'day') }} > '2024-01-01'", type_params: { measure: customer_count } }
  - { name: f_cycle_a, type: simple, filter: "{{ Metric('f_cycle_b', group_by=['customer']) }} > 1", type_params: { measure: order_total } }
  - { name: f_cycle_b, type: simple, filter: "{{ Metric('f_cycle_a', group_by=['customer']) }} > 1", type_params: { measure: order_count } }
  - { name: f_metric_unknown, type: simple, filter: "{{ Metric('nope', group_by=['customer']) }} > 1", type_params: { measure: order_total } }
  - { name: f_metric_invalid, type: simple, filter: "{{ Metric('f_number', group_by=['customer']) }} > 1", type_params: { measure: order_total } }
  - { name: f_measure_filter, type: simple, type_params: { measure: { name: order_total, filter: "{{ Dimension('customer__segment') }} = 'a'", alias: t, fill_nulls_with: 0, join_to_timespine: true } } }
  - { name: f_measure_filter_bad, type: simple, type_params: { measure: { name: order_total, filter: 5 } } }`),
  "metric-simple-measures": withMetrics(`
  - { name: s_none, type: simple, type_params: {} }
  - { name: s_number, type: simple, type_params: { measure: 5 } }
  - { name: s_nameless, type: simple, type_params: { measure: { filter: x } } }
  - { name: s_unknown, type: simple, type_params: { measure: nope } }
  - { name: s_from_cumulative_params, type: simple, type_params: { cumulative_type_params: { measure: order_total } } }
  - { name: s_object, type: simple, type_params: { measure: { name: order_count, fill_nulls_with: 0 } } }`),
  "metric-cumulative": withMetrics(`
  - { name: c_window, type: cumulative, type_params: { measure: order_total, window: 7 days } }
  - { name: c_grain, type: cumulative, type_params: { measure: order_total, grain_to_date: month } }
  - { name: c_nested, type: cumulative, type_params: { cumulative_type_params: { measure: order_total, window: 2 months, period_agg: first } } }
  - { name: c_nested_object, type: Cumulative, type_params: { cumulative_type_params: { measure: { name: order_total, filter: "{{ Dimension('order_id__status') }} = 'x'" }, grain_to_date: year } } }
  - { name: c_params_not_mapping, type: cumulative, type_params: { measure: order_total, cumulative_type_params: 5 } }
  - { name: c_none, type: cumulative, type_params: { window: 7 days } }`),
  "metric-ratio": withMetrics(`
  - { name: r_ok, type: ratio, type_params: { numerator: good_total, denominator: { name: good_total, filter: "{{ Dimension('order_id__status') }} = 'x'", alias: g2 } } }
  - { name: r_no_denominator, type: ratio, type_params: { numerator: good_total } }
  - { name: r_no_params, type: ratio }
  - { name: r_number, type: ratio, type_params: { numerator: 5, denominator: good_total } }
  - { name: r_nameless, type: ratio, type_params: { numerator: { filter: x }, denominator: good_total } }
  - { name: r_bad_input_name, type: ratio, type_params: { numerator: Good-Total, denominator: good_total } }
  - { name: r_filter, type: ratio, filter: "{{ Dimension('order_id__status') }} = 'x'", type_params: { numerator: good_total, denominator: good_total } }
  - { name: r_filter_number, type: ratio, filter: 5, type_params: { numerator: good_total, denominator: good_total } }
  - { name: r_input_filter_on_ratio, type: ratio, type_params: { numerator: { name: r_ok, filter: "{{ Dimension('order_id__status') }} = 'x'" }, denominator: good_total } }
  - { name: r_input_filter_bad, type: ratio, type_params: { numerator: { name: good_total, filter: [5] }, denominator: good_total } }
  - { name: r_unknown_input, type: ratio, type_params: { numerator: nope, denominator: good_total } }
  - { name: r_input_filter_unknown_dim, type: ratio, type_params: { numerator: { name: good_total, filter: "{{ Dimension('order_id__nope') }} = 1" }, denominator: good_total } }`),
  "metric-derived": withMetrics(`
  - { name: d_ok, type: derived, type_params: { expr: a - b, metrics: [{ name: good_total, alias: a }, { name: good_total, offset_window: 7 days, alias: b }] } }
  - { name: d_strings, type: derived, type_params: { expr: good_total * 2, metrics: [good_total] } }
  - { name: d_no_metrics, type: derived, type_params: { expr: "1" } }
  - { name: d_empty_metrics, type: derived, type_params: { expr: "1", metrics: [] } }
  - { name: d_metrics_not_list, type: derived, type_params: { expr: "1", metrics: good_total } }
  - { name: d_no_expr, type: derived, type_params: { metrics: [good_total] } }
  - { name: d_expr_number, type: derived, type_params: { expr: 5, metrics: [good_total] } }
  - { name: d_input_number, type: derived, type_params: { expr: x, metrics: [5] } }
  - { name: d_input_bad_name, type: derived, type_params: { expr: x, metrics: [{ name: "X-1" }] } }
  - { name: d_self, type: derived, type_params: { expr: d_self, metrics: [d_self] } }
  - { name: d_filter, type: derived, filter: ["a"], type_params: { expr: good_total, metrics: [good_total] } }
  - { name: d_on_invalid, type: derived, type_params: { expr: x, metrics: [{ name: s_broken }] } }
  - { name: s_broken, type: simple, type_params: { measure: nope } }`),
  "metric-conversion": withMetrics(`
  - { name: v_ok, type: conversion, type_params: { conversion_type_params: { base_measure: order_count, conversion_measure: { name: order_total }, entity: customer, window: 7 days, calculation: conversion_rate, constant_properties: [{ base_property: a, conversion_property: b }] } } }
  - { name: v_same, type: conversion, type_params: { conversion_type_params: { base_measure: order_count, conversion_measure: order_count, entity: customer } } }
  - { name: v_no_params, type: conversion, type_params: {} }
  - { name: v_params_not_mapping, type: conversion, type_params: { conversion_type_params: 5 } }
  - { name: v_no_base, type: conversion, type_params: { conversion_type_params: { conversion_measure: order_count, entity: customer } } }
  - { name: v_base_number, type: conversion, type_params: { conversion_type_params: { base_measure: 5, conversion_measure: order_count } } }
  - { name: v_base_filter, type: conversion, type_params: { conversion_type_params: { base_measure: { name: order_count, filter: x }, conversion_measure: order_count } } }
  - { name: v_conv_filter, type: conversion, type_params: { conversion_type_params: { base_measure: order_count, conversion_measure: { name: order_count, filter: x } } } }
  - { name: v_two_models, type: conversion, type_params: { conversion_type_params: { base_measure: customer_count, conversion_measure: order_count, entity: customer } } }
  - { name: v_filter, type: conversion, filter: "{{ Dimension('order_id__status') }} = 'x'", type_params: { conversion_type_params: { base_measure: order_count, conversion_measure: order_total } } }
  - { name: v_unknown, type: conversion, type_params: { conversion_type_params: { base_measure: order_count, conversion_measure: nope } } }`),

  "empty-values": withModels(
    `
  - name: a
    model: ref('a')
    description:
    primary_entity:
    defaults:
    node_relation:
    entities: [{ name: id, type: primary, expr: }]
    dimensions: [{ name: ts, type: time, type_params: }, { name: d2, type: categorical, type_params: { time_granularity: } }]
    measures:
      - { name: a_total, agg: sum, expr: v, description: , agg_params: , agg_time_dimension: , non_additive_dimension: , create_metric: }
      - { name: a_p, agg: percentile, expr: v, agg_params: { percentile: } }
  - { name: b, model: ~, node_relation: { alias: t, schema_name: }, defaults: { agg_time_dimension: }, measures: [{ name: b_total, agg: sum, expr: v }] }
  - { name: c, node_relation: { alias: }, measures: [{ name: c_total, agg: sum, expr: v }] }
  - { name: e, model: ref('e'), entities: [{ name: k, type: primary }, { name: f, type: foreign, expr: ~ }], dimensions: ~, measures: [{ name: e_total, agg: sum, expr: v }] }`,
    `
  - { name: a_total, type: simple, description: , filter: , time_granularity: , create_metric: , config: , type_params: { measure: a_total } }
  - { name: b_total, type: simple, config: { meta: , enabled: }, type_params: { measure: { name: b_total, filter: , alias: , fill_nulls_with: , join_to_timespine: } } }
  - { name: c_total, type: simple, type_params: { measure: c_total } }
  - { name: e_total, type: cumulative, type_params: { measure: e_total, window: , grain_to_date: , cumulative_type_params: } }
  - { name: e_nested, type: cumulative, type_params: { measure: , cumulative_type_params: { measure: e_total, window: , period_agg: } } }
  - { name: n_params, type: simple, type_params: }
  - { name: n_measure, type: simple, type_params: { measure: } }
  - { name: n_ratio, type: ratio, type_params: { numerator: , denominator: e_total } }
  - { name: n_derived, type: derived, type_params: { expr: , metrics: } }
  - { name: n_derived_input, type: derived, type_params: { expr: x, metrics: [~] } }
  - { name: n_conversion, type: conversion, type_params: { conversion_type_params: } }
  - { name: n_conversion_base, type: conversion, type_params: { conversion_type_params: { base_measure: , conversion_measure: e_total } } }
  - { name: n_conversion_filter, type: conversion, type_params: { conversion_type_params: { base_measure: { name: e_total, filter: }, conversion_measure: e_total } } }
  - { name: n_name, type: simple, type_params: { measure: e_total } }
  - { name: , type: simple, type_params: { measure: e_total } }
  - { name: n_type, type: , type_params: { measure: e_total } }`,
  ),
  "unknown-keys": {
    "p/m.yml": `version: 2
semantic_models:
  - name: orders
    label: Orders
    description: all orders
    model: ref('orders')
    config: { meta: { owner: finance }, group: sales, enabled: true }
    meta: { x: 1 }
    defaults: { agg_time_dimension: ordered_at, future_default: 1 }
    node_relation_extra: 1
    entities:
      - { name: order_id, type: primary, expr: id, label: Order, role: x, config: { meta: {} } }
      - { name: customer, type: foreign, expr: customer_id, entity: c }
    dimensions:
      - { name: ordered_at, type: time, label: Ordered, is_partition: true, type_params: { time_granularity: day, validity_params: { is_start: true } }, config: { meta: {} } }
      - { name: status, type: categorical }
    measures:
      - { name: order_total, agg: sum, expr: amount, label: Total, create_metric_display_name: T, config: { meta: { a: 1 } } }
      - { name: order_p, agg: percentile, expr: amount, agg_params: { use_discrete_percentile: true, percentile: 0.5, use_approximate_percentile: false } }
      - { name: order_nad, agg: max, expr: amount, non_additive_dimension: { window_choice: max, name: ordered_at, window_groupings: [customer] } }
metrics:
  - name: order_total
    label: Order total
    type: simple
    group: sales
    tags: [a]
    config: { meta: { owner: finance, metric_reliability: { anomalies: { sensitivity: high } } }, enabled: true, group: sales }
    type_params: { measure: { name: order_total, alias: ot, join_to_timespine: true, fill_nulls_with: 0, extra: 1 }, extra_param: 1 }
  - { name: order_p, type: simple, type_params: { measure: order_p } }
  - { name: order_nad, type: simple, type_params: { measure: order_nad } }
  - { name: ratio_x, type: ratio, label: R, type_params: { numerator: { alias: n, name: order_total, offset_window: 1 day, filter: "{{ Dimension('order_id__status') }} = 'x'" }, denominator: { name: order_total, offset_to_grain: month } } }
  - { name: derived_x, type: derived, type_params: { expr: a + 1, metrics: [{ offset_window: 1 week, name: order_total, alias: a }] } }
  - { name: cumulative_x, type: cumulative, type_params: { measure: order_total, cumulative_type_params: { period_agg: last, window: 3 days, future: 1 }, window: 1 day } }
  - name: conversion_x
    type: conversion
    type_params:
      conversion_type_params: { entity: customer, calculation: conversions, base_measure: order_total, conversion_measure: { join_to_timespine: true, name: order_p }, window: 7 days, constant_properties: [{ base_property: a, conversion_property: b }] }
saved_queries:
  - { name: q, label: Q, query_params: { metrics: [order_total], group_by: ["TimeDimension('metric_time', 'day')"], where: "x" }, exports: [{ name: e, config: { export_as: table, schema: s } }] }
`,
  },

  // MetricFlow takes its enums in upper case too; this reader only metric types (any case).
  "upper-case-enums": withModels(
    `
  - { name: a, model: ref('a'), entities: [{ name: k, type: PRIMARY }], measures: [{ name: a_total, agg: sum, expr: v }] }
  - { name: b, model: ref('b'), dimensions: [{ name: d, type: CATEGORICAL }], measures: [{ name: b_total, agg: sum, expr: v }] }
  - { name: c, model: ref('c'), measures: [{ name: c_total, agg: SUM, expr: v }] }`,
    `
  - { name: a_total, type: SIMPLE, type_params: { measure: a_total } }
  - { name: good_upper, type: SIMPLE, type_params: { measure: order_total } }
  - { name: good_mixed, type: Cumulative, type_params: { measure: order_total } }`,
  ),

  // --- dbt tests ---
  "dbt-tests": {
    "p/schema.yml": `version: 2
models:
  - name: orders
    config: { alias: fct_orders, materialized: table }
    columns:
      - name: id
        tests: [unique, not_null, dbt.unique]
      - name: customer_id
        data_tests:
          - relationships: { to: ref('customers'), field: id, config: { severity: WARN } }
          - relationships: { arguments: { to: "source('raw', 'customers')", field: id }, config: { where: "x > 1" } }
          - relationships: { to: customers, field: id }
          - relationships: { to: ref('customers') }
      - name: status
        tests:
          - accepted_values: { values: [placed, 2, true], severity: warn }
          - accepted_values: { arguments: { values: [a] }, config: { severity: error } }
          - accepted_values: { values: [] }
          - accepted_values
          - dbt_utils.not_empty_string
          - { name: custom_name, test_name: unique }
          - 5
          - {}
      - name: 5
        tests: [unique]
      - { tests: [unique] }
      - 5
      - name: no_tests
      - name: odd_tests
        tests: 5
        data_tests: { unique: {} }
  - name: disabled
    config: { enabled: false }
    columns: [{ name: id, tests: [unique] }]
  - name: bad-name
    columns: [{ name: id, tests: [unique] }]
  - name: odd_config
    config: 5
    columns: [{ name: id, tests: [not_null] }]
  - name: odd_columns
    columns: 5
  - 5
  - { columns: [{ name: id, tests: [unique] }] }
sources:
  - name: raw
    schema: raw_data
    tables:
      - name: customers
        identifier: customers_v2
        columns: [{ name: id, tests: [unique] }]
      - name: events
        columns: [{ name: id, data_tests: [not_null] }]
      - 5
      - { identifier: x }
  - name: other
    tables:
      - name: t
        columns: [{ name: id, tests: [unique] }]
  - name: no_tables
  - name: odd_tables
    tables: 5
  - 5
semantic_models:
  - name: orders
    model: ref('fct_orders')
    entities: [{ name: order, type: primary, expr: id }]
    measures: [{ name: order_count, agg: count, expr: "1" }]
  - name: customers
    model: "source('raw', 'customers_v2')"
    entities: [{ name: customer, type: primary, expr: id }]
    measures: [{ name: customer_count, agg: count_distinct, expr: id }]
metrics:
  - { name: order_count, type: simple, type_params: { measure: order_count } }
  - { name: customer_count, type: simple, type_params: { measure: customer_count } }
`,
  },
};
