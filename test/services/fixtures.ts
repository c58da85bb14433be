// Hand-built plain values for service and transport tests.
import type { MetricIR } from "../../src/compile/ir.js";
import { structured, type LooseIR } from "../infer/fixtures.js";
import type { TestResult } from "../../src/evaluate/types.js";
import type { InferredTest } from "../../src/infer/types.js";
import { makeSnapshot, type CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import type { StoredMetricStatus } from "../../src/store/store.js";

export function ir(partial: LooseIR & { name: string }): MetricIR {
  return structured(partial);
}

export function derived(name: string, inputs: string[]): MetricIR {
  return ir({ name, kind: "derived", table: null, measures: [], inputs });
}

export function inferred(metric: string, rule = "measure_not_null"): InferredTest {
  return {
    key: `default|shop.orders||${rule}|amount IS NOT NULL`,
    metric,
    rule,
    name: `${metric}: amount is not null`,
    check: "amount IS NOT NULL",
    severity: "HIGH",
    confidence: "high",
    tolerance: 0,
    datasource: "default",
    table: "shop.orders",
    filter: null,
    columns: [{ table: "shop.orders", column: "amount" }],
    filter_columns: [],
    probe: { type: "rows_where", violation: "amount IS NULL" },
    sample_sql: "SELECT * FROM `shop`.`orders` WHERE amount IS NULL LIMIT 10",
  };
}

export function result(metric: string, status: TestResult["status"], rule = "measure_not_null"): TestResult {
  return {
    metric,
    rule,
    name: `${metric}: ${rule}`,
    severity: "HIGH",
    confidence: "high",
    status,
    rows_affected: status === "passing" ? 0 : 12,
    rows_total: 10_000,
    message: status === "passing" ? "no violations" : "12 of 10,000 rows (0.12%) have NULL amount",
    sample_sql: "SELECT * FROM `shop`.`orders` WHERE amount IS NULL LIMIT 10",
    check: "amount IS NOT NULL",
    outcome: "measured",
  };
}

export function stored(metric: string, status: StoredMetricStatus["status"], at = new Date("2024-05-01T10:00:00Z")): StoredMetricStatus {
  return {
    metric_name: metric,
    status,
    safe_to_use: status === "healthy" || status === "degraded",
    tests: {
      total: 2,
      passing: status === "healthy" ? 2 : 1,
      failing: status === "unreliable" ? 1 : 0,
      warning: status === "degraded" ? 1 : 0,
    },
    checked_at: at,
    since: new Date("2024-04-30T08:00:00Z"),
    scan_id: "6f1c2b1e-8d1a-4b7e-9c7d-2a4f0e1b3c5d",
  };
}

export function snapshot(metrics: MetricIR[] = [ir({ name: "gross_revenue" })]): CatalogSnapshot {
  return makeSnapshot({
    metrics,
    tests: metrics.filter((m) => m.kind === "structured").map((m) => inferred(m.name)),
    errors: [{ metric: "broken_metric", file: "metrics/bad.yaml", message: "measures[0].function: invalid" }],
    warnings: [],
    compiled_at: new Date("2024-05-01T09:00:00Z"),
  });
}
