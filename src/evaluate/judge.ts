// One check's observation -> one metric's test result: the metric's severity and tolerance
// decide the status, so metrics sharing a check can judge the same answer differently.
import type { InferredTest } from "../infer/types.js";
import { statusFor } from "./status.js";
import type { CheckObservation, TestResult, TestStatus } from "./types.js";

/**
 * The share that the tolerance applies to. Row checks count rows; emptiness and freshness are
 * one yes/no fact about the table (rows_total still reports its rows); schema counts columns.
 */
function denominator(test: InferredTest, observation: CheckObservation): number {
  return test.probe.type === "not_empty" || test.probe.type === "staleness" ? 1 : observation.rows_total;
}

export function statusOf(test: InferredTest, observation: CheckObservation): TestStatus {
  switch (observation.outcome) {
    case "not_applicable":
      return "passing";
    case "not_evaluated":
      return "warning";
    case "failed":
      // The check's own SQL throws on today's data: whatever the tolerance, nothing was measured
      // and the metric's definition cannot be computed (derive makes it unreliable).
      return "failing";
    case "measured":
      return statusFor(observation.rows_affected, denominator(test, observation), test.severity, test.tolerance);
  }
}

export function judgeTest(test: InferredTest, observation: CheckObservation): TestResult {
  return {
    metric: test.metric,
    rule: test.rule,
    name: test.name,
    severity: test.severity,
    confidence: test.confidence,
    status: statusOf(test, observation),
    rows_affected: observation.rows_affected,
    rows_total: observation.rows_total,
    message: observation.message,
    sample_sql: observation.sample_sql ?? test.sample_sql,
    check: test.check,
    outcome: observation.outcome,
  };
}
