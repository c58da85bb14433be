// Rows <-> the store's plain values. BigInt columns become numbers here, and text columns are
// narrowed to their union types (the database only ever receives values from these types).
import type { MetricStatus as MetricStatusValue, ReliabilityStatus, TestCounts } from "../derive/types.js";
import type { TestResult as TestResultValue, TestStatus } from "../evaluate/types.js";
import type {
  MetricStatus as MetricStatusRow,
  Scan as ScanRow,
  StatusChange as StatusChangeRow,
  TestResult as TestResultRow,
} from "../generated/prisma/client.js";
import type { Confidence, Severity } from "../infer/types.js";
import type { ScanRecord, ScanState, ScanTrigger, StatusPeriod, StoredMetricStatus } from "./store.js";

export function toScanRecord(row: ScanRow): ScanRecord {
  const { testsTotal, testsPassing, testsFailing, testsWarning } = row;
  const summary =
    testsTotal === null || testsPassing === null || testsFailing === null || testsWarning === null
      ? null
      : { total: testsTotal, passing: testsPassing, failing: testsFailing, warning: testsWarning };
  return {
    scan_id: row.id,
    trigger: row.trigger as ScanTrigger,
    status: row.status as ScanState,
    started_at: row.startedAt,
    finished_at: row.finishedAt,
    error: row.error,
    summary,
  };
}

export function toTestResult(row: TestResultRow): TestResultValue {
  return {
    metric: row.metric,
    rule: row.rule,
    name: row.name,
    severity: row.severity as Severity,
    confidence: row.confidence as Confidence,
    status: row.status as TestStatus,
    rows_affected: Number(row.rowsAffected),
    rows_total: Number(row.rowsTotal),
    message: row.message,
    sample_sql: row.sampleSql,
    check: row.check,
  };
}

/** Counts may arrive as floats from upstream arithmetic; the columns are integers. */
const toBigInt = (value: number) => BigInt(Number.isFinite(value) ? Math.trunc(value) : 0);

export function testResultData(scanId: string, result: TestResultValue) {
  return {
    scanId,
    metric: result.metric,
    rule: result.rule,
    name: result.name,
    check: result.check,
    severity: result.severity,
    confidence: result.confidence,
    status: result.status,
    rowsAffected: toBigInt(result.rows_affected),
    rowsTotal: toBigInt(result.rows_total),
    message: result.message,
    sampleSql: result.sample_sql,
  };
}

export function toStoredStatus(row: MetricStatusRow): StoredMetricStatus {
  return {
    metric_name: row.metric,
    status: row.status as ReliabilityStatus,
    safe_to_use: row.safeToUse,
    tests: { total: row.testsTotal, passing: row.testsPassing, failing: row.testsFailing, warning: row.testsWarning },
    checked_at: row.checkedAt,
    since: row.since,
    scan_id: row.scanId,
  };
}

export function statusData(status: MetricStatusValue, scanId: string, checkedAt: Date, since: Date) {
  return {
    status: status.status,
    safeToUse: status.safe_to_use,
    testsTotal: status.tests.total,
    testsPassing: status.tests.passing,
    testsFailing: status.tests.failing,
    testsWarning: status.tests.warning,
    checkedAt,
    since,
    scanId,
  };
}

export function toStatusPeriod(row: StatusChangeRow): StatusPeriod {
  return { status: row.status as ReliabilityStatus, from: row.from, to: row.to };
}

/** Test counts of a scan, from its results. */
export function countResults(results: readonly TestResultValue[]): TestCounts {
  const counts: TestCounts = { total: results.length, passing: 0, failing: 0, warning: 0 };
  for (const result of results) counts[result.status] += 1;
  return counts;
}
