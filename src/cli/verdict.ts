// What `scan` reports, from either source: one entry per selected metric, in the shape of the
// API's status views (GET /v1/reliability/status/:name), and the one bit a pipeline acts on.
import type { TestCounts } from "../derive/types.js";
import type { StatusEntryView, TestResultView } from "../services/views.js";

export interface MetricVerdict extends StatusEntryView {
  /** absent when the server listing was asked (no --metric): it carries no per-test detail */
  tests?: TestCounts;
  failing_tests?: TestResultView[];
}

export interface ScanReport {
  /** "warehouse": scanned here; otherwise the server's URL */
  source: string;
  /** true when every selected metric is safe_to_use */
  safe_to_use: boolean;
  metrics: MetricVerdict[];
}

export function scanReport(source: string, metrics: MetricVerdict[]): ScanReport {
  return { source, safe_to_use: metrics.every((m) => m.safe_to_use), metrics };
}
