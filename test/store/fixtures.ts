// Plain values for the store tests.
import type { MetricStatus, ReliabilityStatus } from "../../src/derive/types.js";
import type { TestResult } from "../../src/evaluate/types.js";

export const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute, 0, 0));

export function result(metric: string, rule: string, status: TestResult["status"] = "passing", extra: Partial<TestResult> = {}): TestResult {
  return {
    metric,
    rule,
    name: `${metric}: ${rule}`,
    severity: "HIGH",
    confidence: "high",
    status,
    rows_affected: status === "passing" ? 0 : 12,
    rows_total: 10_000,
    message: status === "passing" ? "no violations" : "12 rows violate",
    sample_sql: "SELECT * FROM shop.orders WHERE amount IS NULL LIMIT 10",
    check: "amount IS NOT NULL",
    ...extra,
  };
}

export function status(metric: string, value: ReliabilityStatus, total = 1): MetricStatus {
  const failing = value === "unreliable" ? 1 : 0;
  const warning = value === "degraded" ? 1 : 0;
  return {
    metric_name: metric,
    status: value,
    safe_to_use: value === "healthy" || value === "degraded",
    tests: { total, passing: total - failing - warning, failing, warning },
  };
}
