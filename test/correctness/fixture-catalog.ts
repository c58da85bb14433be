// The metric catalogue over the fixture warehouse, written as real YAML files and loaded
// through the daemon's own loader (read -> validate -> compile -> infer).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { FILTER, PAYMENTS_FILTER } from "./fixture-warehouse.js";

/** orders metrics: the same shape with and without the filter, plus tolerance overrides. */
function ordersYaml(db: string): string {
  const shape = (name: string, filter: string | null) => `
  - name: ${name}
    table: ${db}.orders
    timestamp: created_at
    freshness: 1h${filter === null ? "" : `\n    filter: "${filter}"`}
    measures:
      - { alias: revenue, function: Sum, column: amount }
      - { alias: buyers, function: CountDistinct, column: customer_id }
    dimensions:
      - { name: country, column: country }
      - { name: channel, column: channel }
      - { name: segment, column: segment, table: ${db}.customers }
    joins:
      - { table: ${db}.customers, type: left, on: { column: customer_id, references: id } }`;
  return `metrics:${shape("order_revenue", null)}
${shape("completed_revenue", FILTER)}

  # Same checks as completed_revenue (shared keys), tolerated up to the exact violating share.
  - name: completed_avg_amount
    table: ${db}.orders
    filter: "${FILTER}"
    tolerances: { measure_not_null: 0.01875, measure_finite: 0.0125, measure_non_negative: 0.05 }
    measures:
      - { alias: avg_amount, function: Avg, column: amount }

  # Just under the violating share (3 of 160 = 1.875%): failing again.
  - name: strict_avg_amount
    table: ${db}.orders
    filter: "${FILTER}"
    tolerances: { measure_not_null: 0.018 }
    measures:
      - { alias: avg_amount, function: Avg, column: amount }

  - name: avg_and_revenue
    kind: derived
    inputs: [completed_avg_amount, completed_revenue]
    expression: completed_avg_amount / completed_revenue
`;
}

function otherYaml(db: string): string {
  return `metrics:
  - name: clean_revenue
    table: ${db}.clean_sales
    primary_key: id
    timestamp: sold_at
    freshness: 1h
    measures:
      - { alias: revenue, function: Sum, column: price }
      - { alias: units, function: Sum, column: quantity }
      - { alias: sales, function: Count }
      - { alias: products, function: CountDistinct, column: product_id }
    dimensions:
      - { name: region, column: region, accepted_values: [north, south] }
      - { name: category, column: category, table: ${db}.clean_products }
    joins:
      - { table: ${db}.clean_products, on: { column: product_id, references: id } }

  # A selective filter on a fresh table: its newest filtered row is 45 minutes old, the table's
  # newest row seconds old. Freshness is the table's, so it passes.
  - name: late_sales
    table: ${db}.clean_sales
    timestamp: sold_at
    freshness: 10m
    filter: "id > 90"
    measures:
      - { alias: sales, function: Count }

  # One planted defect per rule a primary key, an inner join, an expression measure, a
  # filter column and declared accepted values imply (dbt tests in 4-dbt/schema.yml).
  - name: card_payments
    table: ${db}.payments
    primary_key: payment_id
    filter: "${PAYMENTS_FILTER}"
    measures:
      - { alias: net_amount, function: Sum, expr: "amount - fee" }
    dimensions:
      - { name: method, column: method, accepted_values: [card, cash] }
    joins:
      - { table: ${db}.orders, type: inner, on: { column: order_id, references: id } }

  - name: stale_events
    table: ${db}.events
    timestamp: happened_at
    freshness: 1d
    measures:
      - { alias: events, function: Count }
    dimensions:
      - { name: kind, column: kind }

  - name: label_timestamp
    table: ${db}.events
    timestamp: label
    freshness: 1d
    measures:
      - { alias: events, function: Count }

  - name: empty_metric
    table: ${db}.empty_orders
    timestamp: created_at
    freshness: 1d
    measures:
      - { alias: revenue, function: Sum, column: amount }
      - { alias: buyers, function: CountDistinct, column: customer_id }
    dimensions:
      - { name: note, column: note }
    joins:
      - { table: ${db}.empty_refs, on: { column: customer_id, references: id } }
`;
}

function driftYaml(db: string): string {
  return `metrics:
  - name: drifted
    table: ${db}.orders
    measures:
      - { alias: discounts, function: Sum, column: discount }
    dimensions:
      - { name: country, column: country }

  - name: gone_metric
    table: ${db}.gone
    measures:
      - { alias: rows, function: Count }

  - name: bad_filter
    table: ${db}.orders
    filter: "no_such_column = 1"
    measures:
      - { alias: rows, function: Count }

  # A template pasted verbatim: ClickHouse cannot parse it, so the metric is unknown (not
  # degraded with every test "not evaluated"), and the compiler view says why.
  - name: template_filter
    table: ${db}.orders
    filter: "{{ Dimension('order__status') }} = 'completed'"
    measures:
      - { alias: rows, function: Count }

  # Valid names, but the query fails at run time on both engines (code 395).
  - name: throwing_filter
    table: ${db}.orders
    filter: "throwIf(1) = 0"
    measures:
      - { alias: rows, function: Count }
`;
}

export const METRIC_NAMES = [
  "order_revenue",
  "completed_revenue",
  "completed_avg_amount",
  "strict_avg_amount",
  "avg_and_revenue",
  "clean_revenue",
  "late_sales",
  "card_payments",
  "stale_events",
  "label_timestamp",
  "empty_metric",
  "drifted",
  "gone_metric",
  "bad_filter",
  "template_filter",
  "throwing_filter",
] as const;

/** dbt column tests, as a dbt project declares them, beside our own format. */
function dbtYaml(): string {
  return `version: 2
models:
  - name: payments
    columns:
      - name: payment_id
        tests: [unique, not_null]
      - name: order_id
        data_tests:
          - not_null
          - relationships: { to: ref('orders'), field: id }
      - name: method
        tests:
          - accepted_values: { values: [card, cash] }
  - name: clean_sales
    columns:
      - name: id
        tests: [unique, not_null]
      - name: product_id
        tests:
          - relationships: { to: ref('clean_products'), field: id }
      - name: region
        tests:
          - accepted_values: { values: [north, south] }
`;
}

/** Writes `files` (name -> YAML) to a temp dir and loads them like the daemon does. */
export async function loadYaml(files: Record<string, string>, metricflowDatabase = "default"): Promise<CatalogSnapshot> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mr-correctness-"));
  try {
    for (const [name, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await writeFile(path.join(dir, name), content);
    }
    return await loadCatalogSnapshot(dir, new Date(), { metricflowDatabase });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function loadFixtureCatalog(db: string): Promise<CatalogSnapshot> {
  return loadYaml(
    { "1-orders.yaml": ordersYaml(db), "2-other.yaml": otherYaml(db), "3-drift.yaml": driftYaml(db), "4-dbt/schema.yml": dbtYaml() },
    db,
  );
}
