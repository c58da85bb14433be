// After this replica's own scan, the read model's next state is its last one plus what the scan
// wrote, worked out here the way src/store/complete-scan.ts writes it, instead of 10,000 statuses,
// every check result and every metric's recent periods read back from the store. Pure: the read
// model falls back to a full reload whenever the result would not be what the store holds.
import type { MetricStatus } from "../derive/types.js";
import type { CheckObservation } from "../evaluate/types.js";
import { nextIncidents } from "../incidents/next-incidents.js";
import type { SeriesVerdicts } from "../evaluate/series-verdicts.js";
import type { ReadState, ScanRecord, StatusPeriod, StoredMetricStatus } from "../store/store.js";

/** What one completed scan wrote, as the scan service handed it to the store and got it back. */
export interface ScanWrite {
  /** completeScan's answer: the scan row, results_written and previous_scan_id */
  scan: ScanRecord;
  statuses: readonly MetricStatus[];
  /** one per distinct check */
  observations: ReadonlyMap<string, CheckObservation>;
  /** incremental scans: checks the store was not sent again (their stored result stands) */
  unchanged?: ReadonlySet<string>;
  /** status periods that ended before this are pruned from the store right after the scan */
  prunedBefore?: Date;
  /** every anomaly series' verdicts the scan scored (kept by the read model's verdict holder) */
  verdicts?: ReadonlyMap<string, SeriesVerdicts>;
}

export type ApplyResult = { state: ReadState } | { reload: string };

/** The store's integer columns: truncated, 0 when not finite, never -0 (see complete-scan.ts). */
const integer = (value: number): number => (Number.isFinite(value) ? Math.trunc(value) || 0 : 0);

/** An observation as the store reads it back (mapping.ts toObservation): no `newest`, no extra fields. */
export function storedObservation(o: CheckObservation): CheckObservation {
  const observation: CheckObservation = {
    outcome: o.outcome,
    rows_affected: integer(o.rows_affected),
    rows_total: integer(o.rows_total),
    message: o.message,
  };
  if (o.sample_sql !== undefined && o.sample_sql !== null) observation.sample_sql = o.sample_sql;
  return observation;
}

/** Whether the store's row (`row`) already holds `s`'s values: its upsert would leave it alone. */
export const sameValues = (row: MetricStatus, s: MetricStatus): boolean =>
  row.status === s.status &&
  row.safe_to_use === s.safe_to_use &&
  row.tests.total === integer(s.tests.total) &&
  row.tests.passing === integer(s.tests.passing) &&
  row.tests.failing === integer(s.tests.failing) &&
  row.tests.warning === integer(s.tests.warning);

/** Whether a result as the store holds it (`stored`) is `o` as the store keeps it: its row would be left alone. */
export function sameObservation(stored: CheckObservation, o: CheckObservation): boolean {
  // storedObservation's fields, compared without building it (called for every result of every scan).
  return (
    stored.outcome === o.outcome &&
    stored.rows_affected === integer(o.rows_affected) &&
    stored.rows_total === integer(o.rows_total) &&
    stored.message === o.message &&
    (stored.sample_sql ?? null) === (o.sample_sql ?? null)
  );
}

/** metric_statuses after the upsert: a row is rewritten only when a value differs; `since` moves with the status. */
function nextStatus(row: StoredMetricStatus | undefined, s: MetricStatus, at: Date, scanId: string): StoredMetricStatus {
  if (row && sameValues(row, s)) return row;
  return {
    metric_name: s.metric_name,
    status: s.status,
    safe_to_use: s.safe_to_use,
    tests: {
      total: integer(s.tests.total),
      passing: integer(s.tests.passing),
      failing: integer(s.tests.failing),
      warning: integer(s.tests.warning),
    },
    checked_at: at,
    since: row && row.status === s.status ? row.since : at,
    scan_id: scanId,
  };
}

/** status_changes after the scan: the open period closes when the status differs, and one opens when none is. */
function nextPeriods(periods: StatusPeriod[], s: MetricStatus, at: Date): StatusPeriod[] {
  const open = periods[0]?.to === null ? periods[0] : undefined;
  if (open?.status === s.status) return periods;
  const opened: StatusPeriod = { status: s.status, from: at, to: null };
  return open ? [opened, { ...open, to: at }, ...periods.slice(1)] : [opened, ...periods];
}

/** Why the store may hold something else than previous + this scan; null when it cannot. */
function inconsistency(previous: ReadState, write: ScanWrite): string | null {
  const { scan } = write;
  if (scan.status !== "succeeded" || scan.finished_at === null) return `the scan is ${scan.status}`;
  if (scan.results_written === false) return "a later-started scan had already written its results";
  if (scan.previous_scan_id === undefined) return "the store did not say which scan preceded this one";
  const basis = previous.scan?.scan_id ?? null;
  if (scan.previous_scan_id !== basis) return `the store's results were of scan ${scan.previous_scan_id}, the view's of ${basis}`;
  // The store's newest succeeded scan is the last to finish (scans ordered by finished_at, then id).
  const before = previous.scan?.finished_at;
  if (before && scan.finished_at.getTime() <= before.getTime()) return "the scan did not finish after the one the view holds";
  return null;
}

/**
 * `previous` (the state the view was built from) plus `write`, or why the read model must reload.
 * `historyLimit` is the read model's: periods kept per metric, newest first.
 */
export function applyScan(previous: ReadState, write: ScanWrite, historyLimit: number): ApplyResult {
  const reason = inconsistency(previous, write);
  if (reason) return { reload: reason };
  const { scan_id: scanId } = write.scan;
  const at = write.scan.finished_at!;

  const rows = new Map<string, StoredMetricStatus>();
  for (const row of previous.statuses) rows.set(row.metric_name, row);
  const written = new Map<string, StoredMetricStatus>();
  // Copied only when something differs: on an unchanged scan the last state's collections stand
  // (10,000 statuses, their periods and every check result copied for nothing was most of this).
  let rewritten = false;
  let history: Map<string, StatusPeriod[]> | null = null;
  for (const s of write.statuses) {
    // The store's upsert refuses a metric twice in one statement: the scan would have failed.
    if (written.has(s.metric_name)) return { reload: `metric ${s.metric_name} twice in the scan's statuses` };
    const row = rows.get(s.metric_name);
    const next = nextStatus(row, s, at, scanId);
    written.set(s.metric_name, next);
    rewritten ||= next !== row;
    if (historyLimit > 0) {
      const periods = previous.history.get(s.metric_name) ?? [];
      const nextPeriodList = nextPeriods(periods, s, at);
      if (nextPeriodList !== periods) (history ??= new Map(previous.history)).set(s.metric_name, nextPeriodList.slice(0, historyLimit));
    }
  }
  // Rows keep their place; metrics new to the store come after (the view is keyed, not ordered).
  const statuses = rewritten ? previous.statuses.map((row) => written.get(row.metric_name) ?? row) : previous.statuses;
  if (rewritten) for (const [metric, row] of written) if (!rows.has(metric)) statuses.push(row);
  if (historyLimit <= 0) history = new Map();

  if (write.prunedBefore) {
    const before = write.prunedBefore.getTime();
    for (const [metric, periods] of history ?? previous.history) {
      // Newest first: only the tail can have ended before the cut-off.
      const last = periods.at(-1);
      if (last?.to && last.to.getTime() < before)
        (history ??= new Map(previous.history)).set(
          metric,
          periods.filter((p) => p.to === null || p.to.getTime() >= before),
        );
    }
  }

  let observations: Map<string, CheckObservation> | null = null;
  for (const [key, o] of write.observations) {
    if (write.unchanged?.has(key)) {
      // Kept results were not sent: the stored row stands, and the view must already hold it.
      if (!previous.observations.has(key)) return { reload: `kept result ${key} is not in the view` };
      continue;
    }
    const held = previous.observations.get(key);
    if (held !== undefined && sameObservation(held, o)) continue;
    (observations ??= new Map(previous.observations)).set(key, storedObservation(o));
  }

  const { results_written: _written, previous_scan_id: _previous, incidents: changed, ...scan } = write.scan;
  const incidents = nextIncidents(previous.incidents ?? [], changed ?? [], write.prunedBefore);
  return {
    state: {
      ...previous,
      scan,
      statuses,
      observations: observations ?? previous.observations,
      history: history ?? previous.history,
      incidents,
    },
  };
}
