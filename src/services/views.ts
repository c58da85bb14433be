// Response shapes shared by REST and tRPC, and the serializers that build them.
// Services return these JSON-safe values (dates already ISO strings), so both transports
// send byte-identical bodies and a typed tRPC client never sees a Date that is really a string.
import type { MetricIR } from "../compile/ir.js";
import type { ReliabilityStatus, TestCounts } from "../derive/types.js";
import type { TestResult, TestStatus } from "../evaluate/types.js";
import type { InferredTest } from "../infer/types.js";
import type { ScanRecord, ScanState, ScanTrigger, StatusPeriod } from "../store/store.js";

export const iso = (date: Date): string => date.toISOString();
export const isoOrNull = (date: Date | null | undefined): string | null => (date ? date.toISOString() : null);

export interface InferredTestView {
  metric: string;
  rule: string;
  name: string;
  check: string;
  severity: InferredTest["severity"];
  confidence: InferredTest["confidence"];
  status: "pending";
}

export interface TestListing {
  tests: InferredTestView[];
  /** tests matching the filters, across every page */
  count: number;
  /** with query parameters only: pass as `cursor` for the next page; null on the last */
  next_cursor?: string | null;
}

export type TestResultView = Pick<
  TestResult,
  "metric" | "rule" | "name" | "severity" | "confidence" | "status" | "rows_affected" | "rows_total" | "message" | "sample_sql" | "check"
>;

export interface TestRunView {
  summary: TestCounts;
  tests: TestResultView[];
  ran_at: string;
}

export interface CompilerStatusView {
  metrics: MetricIR[];
  count: number;
  compiled_at: string;
  errors: { metric: string | null; file: string; message: string }[];
  /** files skipped as none of the known forms, declared tests that are not run */
  warnings: { file: string; message: string }[];
  /** with query parameters only */
  next_cursor?: string | null;
}

export interface StatusEntryView {
  metric_name: string;
  status: ReliabilityStatus;
  safe_to_use: boolean;
  checked_at: string | null;
  since: string | null;
}

export interface StatusSummary {
  total: number;
  healthy: number;
  degraded: number;
  unreliable: number;
  unknown: number;
}

export interface StatusListingView {
  /** over the metrics matching the filters, across every page */
  summary: StatusSummary;
  metrics: StatusEntryView[];
  /** with query parameters only */
  next_cursor?: string | null;
}

export interface StatusPeriodView {
  status: ReliabilityStatus;
  from: string;
  to: string | null;
}

export interface MetricStatusView extends StatusEntryView {
  scan_id: string | null;
  tests: TestCounts;
  failing_tests: TestResultView[];
  history: StatusPeriodView[];
}

export type AffectedRelationship = "base_table" | "join" | "dimension" | "derived";

export interface AffectedByView {
  table: string;
  affected_metrics: { metric_name: string; relationship: AffectedRelationship }[];
  count: number;
}

export interface ScanView {
  scan_id: string;
  status: ScanState;
  trigger: ScanTrigger;
  started_at: string;
  finished_at: string | null;
  error: string | null;
  summary: TestCounts | null;
}

/** POST /v1/reliability/scan: the scan's state, plus whether the request joined a running scan. */
export interface ScanTriggerView extends ScanView {
  coalesced: boolean;
}

export function inferredTestView(test: InferredTest): InferredTestView {
  return {
    metric: test.metric,
    rule: test.rule,
    name: test.name,
    check: test.check,
    severity: test.severity,
    confidence: test.confidence,
    status: "pending",
  };
}

/** Copies exactly the API fields: stored rows may carry more (ids, keys) that must not leak. */
export function testResultView(r: TestResult): TestResultView {
  return {
    metric: r.metric,
    rule: r.rule,
    name: r.name,
    severity: r.severity,
    confidence: r.confidence,
    status: r.status,
    rows_affected: r.rows_affected,
    rows_total: r.rows_total,
    message: r.message,
    sample_sql: r.sample_sql,
    check: r.check,
  };
}

export function scanView(scan: ScanRecord): ScanView {
  const s = scan.summary;
  return {
    scan_id: scan.scan_id,
    status: scan.status,
    trigger: scan.trigger,
    started_at: iso(scan.started_at),
    finished_at: isoOrNull(scan.finished_at),
    error: scan.error,
    summary: s ? { total: s.total, passing: s.passing, failing: s.failing, warning: s.warning } : null,
  };
}

export function periodView(period: StatusPeriod): StatusPeriodView {
  return { status: period.status, from: iso(period.from), to: isoOrNull(period.to) };
}

const PROBLEM_STATUSES: ReadonlySet<TestStatus> = new Set(["failing", "warning"]);
export const isProblem = (r: TestResult): boolean => PROBLEM_STATUSES.has(r.status);

export interface AnomalyBucketView {
  /** ISO 8601 UTC */
  start: string;
  value: number | null;
  expected: number | null;
  lower: number | null;
  upper: number | null;
  anomalous: boolean;
  feedback: boolean;
  /** why the bucket neither trains nor alarms ("holiday: Christmas Day", a planned exclusion's reason); null otherwise */
  excluded: string | null;
}

export interface AnomalySeriesView {
  rule: "volume_anomaly" | "metric_value_anomaly";
  measure: string;
  grain: "hour" | "day";
  /**
   * the segment this series is of (anomalies.segments): one value of a dimension (null: NULL),
   * or with `other` the values beyond the top max_segments; null: the metric's total series
   */
  segment: { dimension: string; value: string | null; other: boolean } | null;
  /** every bucket of the training and detection span, oldest first */
  buckets: AnomalyBucketView[];
}

export interface AnomaliesView {
  metric: string;
  series: AnomalySeriesView[];
}

export interface AnomalyFeedbackView {
  metric: string;
  rule: "volume_anomaly" | "metric_value_anomaly";
  measure: string;
  start: string;
  expected: true;
  created_at: string;
}
