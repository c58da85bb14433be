// What another replica's scan changed, read from the store instead of everything: a replica that
// holds scan S's view and hears (change-feed.ts) that scan X succeeded reads the statuses, current
// check results and status periods X wrote, when X is the only scan that succeeded after S. The
// store then holds S's state plus exactly those rows: completeScan is the only writer of results
// and statuses (one transaction, under the completion lock, rows stamped with its scan id and
// finished_at); failed scans write none, pruning deletes only closed rows and old periods.
import type { MetricStatus as MetricStatusRow } from "../generated/prisma/client.js";
import type { CheckObservation } from "../evaluate/types.js";
import { createIntern } from "../intern.js";
import { readAnomalyFeedback } from "./anomaly-store.js";
import { readIncidents } from "./incident-store.js";
import { STATUS_COLUMNS, toObservation, toStoredStatus, type ObservationRow } from "./mapping.js";
import { newestSucceededScan, readHistory } from "./read-state.js";
import type { Sql } from "./sql-session.js";
import type { ScanDelta, ScanRecord } from "./store.js";

/** Null when more than one scan succeeded after `since` (or none did): the caller reloads whole. */
export async function readScanDeltaIn(sql: Sql, since: ScanRecord, historyLimit: number): Promise<ScanDelta | null> {
  if (since.finished_at === null) return null;
  const scan = await newestSucceededScan(sql);
  if (!scan?.finished_at || scan.scan_id === since.scan_id) return null;
  // The store's order of succeeded scans (newestSucceededScan's): exactly one after `since`.
  const { rows: after } = await sql<{ n: string }>(
    `SELECT count(*)::text AS "n" FROM "scans"
      WHERE "status" = 'succeeded' AND ("finished_at" > $1 OR ("finished_at" = $1 AND "id" > $2))`,
    [since.finished_at, since.scan_id],
  );
  if (after[0]?.n !== "1") return null;
  // Rows are rewritten only when their values changed, stamped with the scan that wrote them.
  const { rows: statusRows } = await sql<MetricStatusRow>(`SELECT ${STATUS_COLUMNS} FROM "metric_statuses" WHERE "scan_id" = $1`, [
    scan.scan_id,
  ]);
  const { rows: resultRows } = await sql<ObservationRow>(
    `SELECT c."key", r."outcome", r."rows_affected"::text AS "rows_affected", r."rows_total"::text AS "rows_total", r."message", r."sample_sql"
       FROM "check_results" r JOIN "checks" c ON c."id" = r."check_id"
      WHERE r."valid_to" IS NULL AND r."scan_id" = $1`,
    [scan.scan_id],
  );
  const intern = createIntern();
  const observations = new Map<string, CheckObservation>();
  for (const row of resultRows) observations.set(row.key, toObservation(row, intern));
  // A status change closes a period and opens one, both at the scan's finished_at.
  const { rows: changed } = await sql<{ metric: string }>(`SELECT DISTINCT "metric" FROM "status_changes" WHERE "valid_from" = $1`, [
    scan.finished_at,
  ]);
  const history = await readHistory(
    sql,
    changed.map((r) => r.metric),
    historyLimit,
  );
  // Incidents are few (one per broken table) and rewritten whole by the scan: read them all.
  return {
    scan,
    statuses: statusRows.map((row) => toStoredStatus(row, intern)),
    observations,
    history,
    feedback: await readAnomalyFeedback(sql),
    incidents: await readIncidents(sql),
  };
}
