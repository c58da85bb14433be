// The store boundary: PostgreSQL (DATABASE_URL) or embedded PGlite, both through Prisma.
// Only src/store/ imports the Prisma client; everything else sees this interface and plain values.
import type { MetricStatus, ReliabilityStatus } from "../derive/types.js";
import type { TestResult } from "../evaluate/types.js";

export type ScanTrigger = "manual" | "schedule" | "startup" | "api_run";
export type ScanState = "running" | "succeeded" | "failed" | "aborted";

export interface ScanRecord {
  scan_id: string;
  trigger: ScanTrigger;
  status: ScanState;
  started_at: Date;
  finished_at: Date | null;
  error: string | null;
  /** test counts of a finished scan; null while running */
  summary: { total: number; passing: number; failing: number; warning: number } | null;
}

export interface StoredMetricStatus extends MetricStatus {
  /** when the scan that produced this status finished */
  checked_at: Date;
  /** since when this status has held without change */
  since: Date;
  scan_id: string;
}

export interface StatusPeriod {
  status: ReliabilityStatus;
  from: Date;
  /** null for the current period */
  to: Date | null;
}

export interface FinishedScan {
  scan_id: string;
  finished_at: Date;
  results: TestResult[];
  statuses: MetricStatus[];
}

export interface Store {
  /**
   * Marks scans left `running` by a dead process as `aborted`: those whose heartbeat (or start,
   * if they never beat) is older than `staleBefore`. Returns how many.
   */
  abortOrphanedScans(staleBefore: Date): Promise<number>;
  /** Proves the scan's process is alive (see abortOrphanedScans). */
  heartbeatScan(scanId: string, at: Date): Promise<void>;
  createScan(scan: { scan_id: string; trigger: ScanTrigger; started_at: Date }): Promise<ScanRecord>;
  /** Writes results, statuses and status-change history in ONE transaction, then marks the scan succeeded. */
  completeScan(scan: FinishedScan): Promise<ScanRecord>;
  failScan(scanId: string, finishedAt: Date, error: string): Promise<ScanRecord>;
  getScan(scanId: string): Promise<ScanRecord | null>;
  getRunningScan(): Promise<ScanRecord | null>;
  /** The latest status of every metric ever scanned. */
  latestStatuses(): Promise<StoredMetricStatus[]>;
  latestStatus(metric: string): Promise<StoredMetricStatus | null>;
  /** Status periods of a metric, newest first. */
  statusHistory(metric: string, limit: number): Promise<StatusPeriod[]>;
  /** Results of the newest succeeded scan (all metrics), or null if none. */
  latestResults(): Promise<{ scan: ScanRecord; results: TestResult[] } | null>;
  /** Results of the newest succeeded scan that covered `metric`. */
  latestResultsFor(metric: string): Promise<TestResult[]>;
  /** Cron election: true for exactly one caller per (name, fireTime). */
  claimRun(name: string, fireTime: Date): Promise<boolean>;
  /** Deletes scans, results and claims older than `before`; keeps current statuses. */
  prune(before: Date): Promise<void>;
  /** True when the store answers a trivial query. Never throws. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
