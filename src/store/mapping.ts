// Rows <-> the store's plain values. BigInt columns become numbers here, and text columns are
// narrowed to their union types (the database only ever receives values from these types).
import type { ReliabilityStatus } from "../derive/types.js";
import type { CheckObservation, ObservationOutcome } from "../evaluate/types.js";
import type { MetricStatus as MetricStatusRow, Scan as ScanRow, StatusChange as StatusChangeRow } from "../generated/prisma/client.js";
import type { Intern } from "../intern.js";
import type { ScanRecord, ScanState, ScanTrigger, StatusPeriod, StoredMetricStatus } from "./store.js";

export type { ScanRow };

/** The scans columns under the client's field names, so raw rows map like the client's. */
export const SCAN_COLUMNS = `"id", "trigger", "status", "started_at" AS "startedAt", "finished_at" AS "finishedAt", "heartbeat_at" AS "heartbeatAt",
  "error", "tests_total" AS "testsTotal", "tests_passing" AS "testsPassing", "tests_failing" AS "testsFailing",
  "tests_warning" AS "testsWarning", "catalog_version" AS "catalogVersion"`;

/** The metric_statuses columns under the client's field names. */
export const STATUS_COLUMNS = `"metric", "status", "safe_to_use" AS "safeToUse", "tests_total" AS "testsTotal", "tests_passing" AS "testsPassing",
  "tests_failing" AS "testsFailing", "tests_warning" AS "testsWarning", "checked_at" AS "checkedAt", "since", "scan_id" AS "scanId"`;

const asIs: Intern = (value) => value;

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
    catalog_version: row.catalogVersion,
  };
}

export interface ObservationRow {
  key: string;
  outcome: string;
  rows_affected: bigint | number | string;
  rows_total: bigint | number | string;
  message: string;
  sample_sql: string | null;
}

export function toObservation(row: ObservationRow, intern: Intern = asIs): CheckObservation {
  const observation: CheckObservation = {
    outcome: intern(row.outcome) as ObservationOutcome,
    rows_affected: Number(row.rows_affected),
    rows_total: Number(row.rows_total),
    message: intern(row.message),
  };
  if (row.sample_sql !== null) observation.sample_sql = row.sample_sql;
  return observation;
}

export function toStoredStatus(row: MetricStatusRow, intern: Intern = asIs): StoredMetricStatus {
  return {
    metric_name: row.metric,
    status: intern(row.status) as ReliabilityStatus,
    safe_to_use: row.safeToUse,
    tests: { total: row.testsTotal, passing: row.testsPassing, failing: row.testsFailing, warning: row.testsWarning },
    checked_at: row.checkedAt,
    since: row.since,
    scan_id: intern(row.scanId),
  };
}

export function toStatusPeriod(row: Pick<StatusChangeRow, "status" | "from" | "to">, intern: Intern = asIs): StatusPeriod {
  return { status: intern(row.status) as ReliabilityStatus, from: row.from, to: row.to };
}
