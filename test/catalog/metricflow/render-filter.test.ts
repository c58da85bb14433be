import { describe, expect, it } from "vitest";
import { splitConjuncts, templateCalls } from "../../../src/catalog/metricflow/filter-template.js";
import { buildJoinGraph } from "../../../src/catalog/metricflow/join-graph.js";
import { renderFilter } from "../../../src/catalog/metricflow/render-filter.js";
import type { SemanticModel } from "../../../src/catalog/metricflow/types.js";

const model = (
  name: string,
  table: string,
  entities: SemanticModel["entities"],
  dimensions: SemanticModel["dimensions"],
): SemanticModel => ({
  name,
  file: "m.yml",
  description: null,
  table,
  primary_entity: null,
  agg_time_dimension: null,
  entities,
  dimensions,
  measures: [],
});
const orders = model(
  "orders",
  "db.orders",
  [
    { name: "order", type: "primary", column: "id", expr: null },
    { name: "customer", type: "foreign", column: "customer_id", expr: null },
  ],
  [
    { name: "ordered_at", type: "time", granularity: "day", column: "ordered_at", expr: null },
    { name: "is_big", type: "categorical", granularity: null, column: null, expr: "amount > 100" },
  ],
);
const customers = model(
  "customers",
  "db.customers",
  [{ name: "customer", type: "primary", column: "id", expr: null }],
  [{ name: "tier", type: "categorical", granularity: null, column: "tier", expr: null }],
);
const context = { graph: buildJoinGraph([orders, customers]), model: orders, aggTimeDimension: "ordered_at" };

describe("MetricFlow filter templates", () => {
  it("split at top-level AND only (not inside quotes, parentheses, {{ }} or BETWEEN ... AND)", () => {
    expect(splitConjuncts("a = 'x and y' AND (b OR c and d) and e BETWEEN 1 AND 2 AND {{ Dimension('p and q') }}")).toEqual([
      "a = 'x and y'",
      "(b OR c and d)",
      "e BETWEEN 1 AND 2",
      "{{ Dimension('p and q') }}",
    ]);
  });

  it("read calls with positional and keyword arguments and methods", () => {
    expect(templateCalls("{{ Dimension('a__b', entity_path=['x', 'y']).grain('month') }} > 1")).toEqual({
      calls: [
        {
          text: "{{ Dimension('a__b', entity_path=['x', 'y']).grain('month') }}",
          kind: "Dimension",
          positional: ["a__b"],
          keywords: { entity_path: ["x", "y"] },
          methods: [["grain", "month"]],
        },
      ],
    });
    expect(templateCalls("{% if x %}1{% endif %}")).toEqual({ problem: expect.stringContaining("Jinja statements") });
  });

  it("render base dimensions inline, expressions in parentheses, time grains as ClickHouse functions", () => {
    expect(
      renderFilter("{{ Dimension('order__is_big') }} AND {{ TimeDimension('metric_time', 'week') }} >= '2024-01-01'", context),
    ).toMatchObject({
      ok: true,
      sql: "((amount > 100)) AND (toMonday(toDateTime(ordered_at)) >= '2024-01-01')",
      hops: [],
    });
  });

  it("render a joined dimension as a semi-join on the key path", () => {
    const result = renderFilter("{{ Dimension('customer__tier') }} IN ('gold', 'silver')", context);
    expect(result).toMatchObject({
      ok: true,
      sql: "toString(customer_id) IN (SELECT toString(id) FROM `db`.`customers` WHERE tier IN ('gold', 'silver'))",
    });
  });

  it("name what is not supported, and what does not exist", () => {
    expect(renderFilter("{{ Dimension('order__ordered_at').date_part('year') }} = 2024", context)).toMatchObject({
      ok: false,
      unsupported: true,
      problem: ".date_part() on Dimension() in a filter",
    });
    expect(renderFilter("{{ Dimension('customer__tier') }} = 'x' OR {{ Dimension('order__is_big') }}", context)).toMatchObject({
      ok: false,
      unsupported: true,
    });
    expect(renderFilter("{{ Dimension('customer__nope') }}", context)).toMatchObject({ ok: false, unsupported: false });
    expect(renderFilter("{{ Metric('revenue', group_by=['customer']) }} > 1", context)).toMatchObject({ ok: false, unsupported: true });
  });
});
