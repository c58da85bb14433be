// The read model's load: statuses, current check results and recent status periods, in pages
// with a yield between them, so a 10,000-metric catalogue never holds the event loop for long.
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { createIntern } from "../intern.js";
import type { MetricStatus as MetricStatusRow } from "../generated/prisma/client.js";
import type { CheckObservation } from "../evaluate/types.js";
import {
  SCAN_COLUMNS,
  STATUS_COLUMNS,
  toObservation,
  toScanRecord,
  toStatusPeriod,
  toStoredStatus,
  type ObservationRow,
  type ScanRow,
} from "./mapping.js";
import { readAnomalyFeedback } from "./anomaly-store.js";
import { readIncidents } from "./incident-store.js";
import type { Sql } from "./sql-session.js";
import type { ReadState, ScanRecord, StatusPeriod, StoredMetricStatus } from "./store.js";

const PAGE = 5_000;

export async function newestSucceededScan(sql: Sql): Promise<ScanRecord | null> {
  const { rows } = await sql<ScanRow>(
    `SELECT ${SCAN_COLUMNS} FROM "scans" WHERE "status" = 'succeeded' ORDER BY "finished_at" DESC, "id" DESC LIMIT 1`,
  );
  return rows[0] ? toScanRecord(rows[0]) : null;
}

export async function readStatuses(sql: Sql): Promise<StoredMetricStatus[]> {
  const statuses: StoredMetricStatus[] = [];
  const intern = createIntern();
  let after = "";
  for (;;) {
    // Keyset pages; "" sorts before every metric name.
    const { rows } = await sql<MetricStatusRow>(
      `SELECT ${STATUS_COLUMNS} FROM "metric_statuses" WHERE "metric" > $1 ORDER BY "metric" LIMIT ${PAGE}`,
      [after],
    );
    for (const row of rows) statuses.push(toStoredStatus(row, intern));
    if (rows.length < PAGE) return statuses;
    after = rows.at(-1)!.metric;
    await yieldToLoop();
  }
}

export async function readObservations(sql: Sql): Promise<Map<string, CheckObservation>> {
  const observations = new Map<string, CheckObservation>();
  const intern = createIntern();
  let after = (-(2n ** 63n)).toString();
  for (;;) {
    // Keyset pages over the open rows' check ids (one open row per check).
    const { rows } = await sql<ObservationRow & { check_id: string }>(
      `SELECT r."check_id"::text AS "check_id", c."key", r."outcome", r."rows_affected"::text AS "rows_affected", r."rows_total"::text AS "rows_total",
              r."message", r."sample_sql"
         FROM "check_results" r JOIN "checks" c ON c."id" = r."check_id"
        WHERE r."valid_to" IS NULL AND r."check_id" > $1::bigint
        ORDER BY r."check_id" LIMIT ${PAGE}`,
      [after],
    );
    for (const row of rows) observations.set(row.key, toObservation(row, intern));
    if (rows.length < PAGE) return observations;
    after = rows.at(-1)!.check_id;
    await yieldToLoop();
  }
}

/** The newest `limit` periods of each of `metrics`, a page of metrics per query. */
export async function readHistory(sql: Sql, metrics: readonly string[], limit: number): Promise<Map<string, StatusPeriod[]>> {
  const history = new Map<string, StatusPeriod[]>();
  if (limit <= 0) return history;
  const intern = createIntern();
  for (let start = 0; start < metrics.length; start += PAGE) {
    if (start > 0) await yieldToLoop();
    const { rows } = await sql<{ metric: string; status: string; from: Date; to: Date | null }>(
      `SELECT "metric", "status", "from", "to" FROM (
         SELECT "metric", "status", "valid_from" AS "from", "valid_to" AS "to",
                row_number() OVER (PARTITION BY "metric" ORDER BY "valid_from" DESC, "id" DESC) AS "n"
           FROM "status_changes" WHERE "metric" = ANY($1::text[])) p
        WHERE "n" <= $2 ORDER BY "metric", "n"`,
      [metrics.slice(start, start + PAGE), limit],
    );
    for (const row of rows) {
      const periods = history.get(row.metric);
      const period = toStatusPeriod(row, intern);
      if (periods) periods.push(period);
      else history.set(row.metric, [period]);
    }
  }
  return history;
}

export async function readStateIn(sql: Sql, historyLimit: number): Promise<ReadState> {
  const scan = await newestSucceededScan(sql);
  const statuses = await readStatuses(sql);
  const observations = await readObservations(sql);
  // Periods exist only for metrics with a status (both are written together).
  const history = await readHistory(
    sql,
    statuses.map((s) => s.metric_name),
    historyLimit,
  );
  const feedback = await readAnomalyFeedback(sql);
  return { scan, statuses, observations, history, feedback, incidents: await readIncidents(sql) };
}
