// The store boundary: PostgreSQL (DATABASE_URL) or embedded PGlite, both through Prisma.
// Only src/store/ imports the Prisma client; everything else sees this interface and plain values.
import type { MetricStatus, ReliabilityStatus, TestCounts } from "../derive/types.js";
import type { CheckObservation, FlaggedBucket } from "../evaluate/types.js";
import type { InferredTest } from "../infer/types.js";
import type { CheckPass, PreviousCheck } from "../evaluate/check-pass.js";
import type { ChangeFeed, ChangeHandlers } from "./change-feed.js";
import type { Incident, TableProblem } from "../incidents/types.js";

export type { ChangeFeed, ChangeHandlers, StoreChange, StoreChangeKind } from "./change-feed.js";
import type { LoadChange, LoadHistory } from "../evaluate/load-arrivals.js";
import type { SeriesVerdicts } from "../evaluate/series-verdicts.js";

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
  /** hash of the catalogue a succeeded scan ran; null otherwise */
  catalog_version: string | null;
  /**
   * completeScan only: false when a scan that started later had already succeeded, so this
   * scan's results were not written (they are older than the store's)
   */
  results_written?: boolean;
  /**
   * completeScan only: the newest succeeded scan before this one completed (null: none), read
   * under the completion lock, so a read model holding that scan's results can apply this one's
   */
  previous_scan_id?: string | null;
  /** completeScan only: the incidents this scan opened, changed or resolved, as written (absent: none asked) */
  incidents?: Incident[];
}

/**
 * The process that runs a scan. A pid names one live process on a host at a time, and the
 * process start time tells a restarted process (a container's pid 1 again) from its predecessor.
 */
export interface ScanOwner {
  host: string;
  pid: number;
  /** when the process started, to the millisecond */
  process_started_at: Date;
}

/** A scan still marked running, with what tells whether its process is alive. */
export interface RunningScanOwner {
  scan_id: string;
  /** null on scans recorded before owners were */
  owner: ScanOwner | null;
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

export type { FlaggedBucket };

export interface StoredAnomalyBucket extends FlaggedBucket {
  /** false once a scan stopped flagging it */
  active: boolean;
  first_scan_id: string;
  last_scan_id: string;
  created_at: Date;
  updated_at: Date;
}

/** "This flagged bucket is expected": it never alerts again and goes back into training. */
export interface AnomalyFeedbackRecord {
  check_key: string;
  start: Date;
  /** what the request named */
  metric: string;
  rule: string;
  measure: string;
  expected: true;
  created_at: Date;
}

export interface FinishedScan {
  scan_id: string;
  /** the catalogue the scan ran: its tests are stored once per version */
  catalog: { version: string; tests: readonly InferredTest[] };
  /** one per distinct check (InferredTest.key) */
  observations: ReadonlyMap<string, CheckObservation>;
  statuses: readonly MetricStatus[];
  /**
   * The statuses of `statuses` that differ from those the replica held as of the scan `basis`
   * (its view's): when the store's newest scan is `basis`, only these are written (the others
   * are in the store as they are); otherwise all of them. Absent: all of them.
   */
  statusesChanged?: { basis: string; changed: readonly MetricStatus[] };
  /**
   * The checks whose observation equals the one the replica held as of the scan `basis`: when the
   * store's newest scan is `basis`, their rows are as they are and are not sent. Absent: none.
   */
  observationsSame?: { basis: string; keys: ReadonlySet<string> };
  /** test counts over every (metric, test) of the scan */
  summary: TestCounts;
  /**
   * Anomaly checks: the buckets this scan flagged, and the checks whose series it scored (their
   * buckets flagged before and not now stop being active). Absent: nothing to write.
   */
  anomalies?: {
    flagged: readonly FlaggedBucket[];
    judged: readonly string[];
    /**
     * Every series' verdicts this scan scored (`all`), and which of them differ from those of the
     * scan `basis` (the verdicts the replica held; null: none): when the store's newest scan is
     * `basis`, only `changed` are written and `removed` deleted; otherwise all of them.
     */
    verdicts?: VerdictsWrite;
  };
  /** incremental scans: the basis each observed check was measured under; null forgets it. Unset (a full scan): every basis is forgotten */
  passes?: ReadonlyMap<string, CheckPass | null>;
  /** incremental scans: checks whose result and basis are the previous pass's, unchanged: not written again */
  unchanged?: ReadonlySet<string>;
  /** what fails per root table (src/incidents): open incidents are opened, extended or resolved against it. Absent: incidents untouched */
  problems?: readonly TableProblem[];
  /** freshness_anomaly: what changed in each series' loads (by series id); absent: nothing */
  loads?: ReadonlyMap<string, LoadChange>;
}

export interface VerdictsWrite {
  all: ReadonlyMap<string, SeriesVerdicts>;
  changed: readonly string[];
  removed: readonly string[];
  basis: string | null;
}

/** Everything a replica's read model holds, as of the newest succeeded scan. */
export interface SessionRevocation {
  seq: bigint;
  session_id: string;
  expires_at: Date;
}

export interface ReadState {
  /** the newest succeeded scan; null on a store that has none */
  scan: ScanRecord | null;
  statuses: StoredMetricStatus[];
  /** the current observation of every check, by key */
  observations: Map<string, CheckObservation>;
  /** status periods per metric, newest first, at most historyLimit each */
  history: Map<string, StatusPeriod[]>;
  /** every "expected" mark on anomaly buckets (absent: none known) */
  feedback?: AnomalyFeedbackRecord[];
  /** every incident kept (open and resolved), newest opened first (absent: none known) */
  incidents?: Incident[];
}

/**
 * What the newest succeeded scan wrote, when it is the only one that succeeded after the scan a
 * read model holds (read-delta.ts): that state plus these rows is the store's.
 */
export interface ScanDelta {
  scan: ScanRecord;
  /** the status rows the scan rewrote (their values changed) or wrote first */
  statuses: StoredMetricStatus[];
  /** the check results the scan opened, by key */
  observations: Map<string, CheckObservation>;
  /** the recent periods of the metrics whose status the scan changed (or first set), newest first */
  history: Map<string, StatusPeriod[]>;
  /** every "expected" mark, as in ReadState */
  feedback: AnomalyFeedbackRecord[];
  /** every incident kept, as in ReadState */
  incidents: Incident[];
}

export interface Store {
  /**
   * Marks scans left `running` by a dead process as `aborted`: those whose heartbeat (or start,
   * if they never beat) is older than `staleBefore`. Returns how many.
   */
  abortOrphanedScans(staleBefore: Date): Promise<number>;
  /** Scans still marked running, with their owners (see scan/orphans.ts). */
  runningScanOwners(): Promise<RunningScanOwner[]>;
  /** Marks these scans `aborted` if they are still running. Returns how many. */
  abortScans(scanIds: readonly string[]): Promise<number>;
  /**
   * Marks `aborted` the running scans whose owner's store session is gone (its listener's
   * advisory lock was released: the process died). PostgreSQL only; 0 elsewhere. Returns how many.
   */
  abortScansOfLostSessions(): Promise<number>;
  /**
   * Listens to the changes other replicas commit (PostgreSQL LISTEN/NOTIFY, reconnecting on its
   * own). Null for the embedded store: one process, nothing to hear. At most once per store.
   */
  watch(handlers: ChangeHandlers): ChangeFeed | null;
  /** Proves the scan's process is alive (see abortOrphanedScans). */
  heartbeatScan(scanId: string, at: Date): Promise<void>;
  createScan(scan: { scan_id: string; trigger: ScanTrigger; started_at: Date; owner?: ScanOwner }): Promise<ScanRecord>;
  /**
   * Writes a catalogue version's checks and test definitions, in a transaction of its own; nothing
   * when the store holds the version already. The scan service calls it while the warehouse is
   * read, so that completeScan (which writes the version itself when it is missing) finds it there.
   */
  writeCatalogVersion(catalog: FinishedScan["catalog"]): Promise<void>;
  /**
   * Writes what changed (check results, statuses, status periods; the catalogue version once)
   * in ONE transaction, and marks the scan succeeded. finished_at is taken inside it.
   */
  completeScan(scan: FinishedScan): Promise<ScanRecord>;
  failScan(scanId: string, finishedAt: Date, error: string): Promise<ScanRecord>;
  getScan(scanId: string): Promise<ScanRecord | null>;
  getRunningScan(): Promise<ScanRecord | null>;
  /** The newest scans of any state (running, succeeded, failed, aborted), newest start first. */
  recentScans(limit: number): Promise<ScanRecord[]>;
  /** The latest status of every metric ever scanned. */
  latestStatuses(): Promise<StoredMetricStatus[]>;
  latestStatus(metric: string): Promise<StoredMetricStatus | null>;
  /** Status periods of a metric, newest first. */
  statusHistory(metric: string, limit: number): Promise<StatusPeriod[]>;
  /** The newest succeeded scan: one indexed row, cheap enough to poll. */
  newestSucceededScan(): Promise<ScanRecord | null>;
  /** Each check's current result with the basis it was measured under (incremental scans), by key. */
  readPasses(): Promise<Map<string, PreviousCheck>>;
  /**
   * What changed since `since` (a scan the caller's view holds), from one snapshot; null when
   * that is not one scan's writes (several succeeded since, or none): the caller reads everything.
   */
  readScanDelta(since: ScanRecord, options: { historyLimit: number }): Promise<ScanDelta | null>;
  /** What a read model needs, read in pages (yielding between them) from one consistent snapshot. */
  readState(options: { historyLimit: number }): Promise<ReadState>;
  /** Every "expected" mark on anomaly buckets (a scan passes them to the scoring). */
  anomalyFeedback(): Promise<AnomalyFeedbackRecord[]>;
  /** Marks a bucket expected; marking it again keeps the first record. */
  addAnomalyFeedback(feedback: Omit<AnomalyFeedbackRecord, "created_at" | "expected">): Promise<AnomalyFeedbackRecord>;
  /** The series verdicts the store holds for these checks, by key (a check without any is absent). */
  anomalyVerdicts(checkKeys: readonly string[]): Promise<Map<string, SeriesVerdicts>>;
  /** Writes series verdicts scored outside a scan (feedback): rows that are the same are left alone. */
  putAnomalyVerdicts(verdicts: readonly SeriesVerdicts[]): Promise<void>;
  /** The buckets these checks ever flagged (active or not), oldest first. */
  anomalyBuckets(checkKeys: readonly string[]): Promise<StoredAnomalyBucket[]>;
  /** freshness_anomaly: every series' last sighting and the loads kept, by series id (evaluate/load-arrivals.ts). */
  readLoads(): Promise<Map<string, LoadHistory>>;
  /** Ends a page session on every replica (its logout); revoking it again changes nothing. */
  revokeSession(sessionId: string, expiresAt: Date): Promise<void>;
  /** Revocations of sessions not yet expired, written after `afterSeq` (0: all), in seq order. */
  sessionRevocations(afterSeq: bigint): Promise<SessionRevocation[]>;
  /** Cron election: true for exactly one caller per (name, fireTime). */
  claimRun(name: string, fireTime: Date): Promise<boolean>;
  /**
   * Deletes scans, closed check results, status periods, claims and resolved incidents older than
   * `before`, expired session revocations, and
   * catalogue versions no remaining scan ran; keeps current statuses and current results.
   */
  prune(before: Date): Promise<void>;
  /** True when the store answers a trivial query. Never throws. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
