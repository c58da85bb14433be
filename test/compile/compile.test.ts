import { describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/catalog/parse-catalog.js";
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
      source: { format: "ours", file: "metrics/shop.yaml" },
      metricflow: null,
      file: "metrics/shop.yaml",
    });
  });

  it("keeps the catalogue order and does not share arrays with the definitions", () => {
    const irs = compileCatalog(definitions);
    expect(irs.map((ir) => ir.name)).toEqual(["gross_revenue", "ratio"]);
    irs[1]!.inputs.push("x");
    expect(definitions[1]).toMatchObject({ inputs: ["gross_revenue"] });
  });
});
