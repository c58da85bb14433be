// Plain values for the store tests.
import type { MetricStatus, ReliabilityStatus } from "../../src/derive/types.js";
import type { CheckObservation } from "../../src/evaluate/types.js";
import type { InferredTest } from "../../src/infer/types.js";
import type { FinishedScan } from "../../src/store/store.js";
import { makeTest } from "../plan/make-test.js";

export const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute, 0, 0));

/** A test of `metric` whose check key is `check` (shared when two metrics name the same check). */
export function test(metric: string, check: string, extra: Partial<InferredTest> = {}): InferredTest {
  return makeTest({
    rule: "measure_not_null",
    key: check,
    check,
    metric,
    name: `${metric}: ${check}`,
    probe: { type: "rows_where", violation: "isNull(`amount`)" },
    ...extra,
  });
}

export function observation(rows_affected = 0, rows_total = 10_000, extra: Partial<CheckObservation> = {}): CheckObservation {
  return { outcome: "measured", rows_affected, rows_total, message: `${rows_affected} of ${rows_total} rows`, ...extra };
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

/** A finished scan of `tests` with the given observations (by check key) and statuses. */
export function finished(
  scanId: string,
  tests: InferredTest[],
  observations: Record<string, CheckObservation>,
  statuses: MetricStatus[],
  version = "v1",
): FinishedScan {
  return {
    scan_id: scanId,
    catalog: { version, tests },
    observations: new Map(Object.entries(observations)),
    statuses,
    summary: { total: tests.length, passing: tests.length, failing: 0, warning: 0 },
  };
}
