// Test results -> one reliability status per metric (DESIGN.md "Reliability status").
import type { TestResult } from "../evaluate/types.js";
import type { MetricStatus, ReliabilityStatus, TestCounts } from "./types.js";

/** The reliability summary of api-spec.md plus the added `unknown` count. */
export interface ReliabilitySummary {
  total: number;
  healthy: number;
  degraded: number;
  unreliable: number;
  unknown: number;
}

export function countTests(results: TestResult[]): TestCounts {
  const counts: TestCounts = { total: results.length, passing: 0, failing: 0, warning: 0 };
  for (const result of results) counts[result.status] += 1;
  return counts;
}

/** Schema checks read system.columns, never the rows: they cannot vouch for the data. */
const SCHEMA_RULES = new Set(["columns_exist", "filter_columns_exist"]);

/** A test that could not run. */
export const notEvaluated = (r: TestResult): boolean => r.outcome === "not_evaluated";

function statusOf(results: TestResult[]): ReliabilityStatus {
  // Never scanned (or no tests at all): nothing vouches for the metric.
  if (results.length === 0) return "unknown";
  if (results.some((r) => r.status === "failing" && r.severity === "HIGH")) return "unreliable";
  // A check whose SQL throws on today's data (a cast of a NULL in a dimension's expression):
  // the metric's own definition cannot be computed, whatever the check's severity.
  if (results.some((r) => r.outcome === "failed")) return "unreliable";
  // Not one data test could be evaluated (an unparsable filter, an unreachable datasource):
  // nothing vouches for the metric, so it is not safe to use. A check that does not apply
  // (measure_finite on an integer column) vouches for nothing either.
  const data = results.filter((r) => !SCHEMA_RULES.has(r.rule));
  const vouches = (r: TestResult) => r.outcome === "measured";
  if (data.length > 0 ? !data.some(vouches) : results.every(notEvaluated)) return "unknown";
  if (results.some((r) => r.status !== "passing")) return "degraded";
  return "healthy";
}

/** One entry per name, in the given order; results for other metrics are ignored. */
export function deriveStatuses(metricNames: string[], results: TestResult[]): MetricStatus[] {
  const byMetric = new Map<string, TestResult[]>();
  for (const result of results) {
    const list = byMetric.get(result.metric);
    if (list) list.push(result);
    else byMetric.set(result.metric, [result]);
  }
  return metricNames.map((name) => {
    const own = byMetric.get(name) ?? [];
    const status = statusOf(own);
    return {
      metric_name: name,
      status,
      // degraded stays usable: warnings and MEDIUM/LOW failures do not stop consumers.
      safe_to_use: status === "healthy" || status === "degraded",
      tests: countTests(own),
    };
  });
}

export function summarize(statuses: MetricStatus[]): ReliabilitySummary {
  const summary: ReliabilitySummary = { total: statuses.length, healthy: 0, degraded: 0, unreliable: 0, unknown: 0 };
  for (const entry of statuses) summary[entry.status] += 1;
  return summary;
}
