// The read model's load: statuses, current check results and recent status periods, in pages
// with a yield between them, so a 10,000-metric catalogue never holds the event loop for long.
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { Prisma } from "../generated/prisma/client.js";
import type { CheckObservation } from "../evaluate/types.js";
import { toObservation, toStatusPeriod, toStoredStatus, toScanRecord, type ObservationRow } from "./mapping.js";
import type { ReadState, StatusPeriod, StoredMetricStatus } from "./store.js";

const PAGE = 5_000;

export async function newestSucceededScanRow(db: Prisma.TransactionClient) {
  return db.scan.findFirst({ where: { status: "succeeded" }, orderBy: [{ finishedAt: "desc" }, { id: "desc" }] });
}

export async function readStatuses(db: Prisma.TransactionClient): Promise<StoredMetricStatus[]> {
  const statuses: StoredMetricStatus[] = [];
  let after: string | undefined;
  for (;;) {
    const rows = await db.metricStatus.findMany({ orderBy: { metric: "asc" }, take: PAGE, ...(after === undefined ? {} : { cursor: { metric: after }, skip: 1 }) });
    for (const row of rows) statuses.push(toStoredStatus(row));
    if (rows.length < PAGE) return statuses;
    after = rows.at(-1)!.metric;
    await yieldToLoop();
  }
}

export async function readObservations(db: Prisma.TransactionClient): Promise<Map<string, CheckObservation>> {
  const observations = new Map<string, CheckObservation>();
  let after = -(2n ** 63n);
  for (;;) {
    // Keyset pages over the open rows' check ids (one open row per check).
    const rows = await db.$queryRawUnsafe<(ObservationRow & { check_id: bigint })[]>(
      `SELECT r."check_id", c."key", r."outcome", r."rows_affected", r."rows_total", r."message", r."sample_sql"
         FROM "check_results" r JOIN "checks" c ON c."id" = r."check_id"
        WHERE r."valid_to" IS NULL AND r."check_id" > $1::bigint
        ORDER BY r."check_id" LIMIT ${PAGE}`,
      after.toString(),
    );
    for (const row of rows) observations.set(row.key, toObservation(row));
    if (rows.length < PAGE) return observations;
    after = BigInt(rows.at(-1)!.check_id);
    await yieldToLoop();
  }
}

/** The newest `limit` periods of each of `metrics`, a page of metrics per query. */
export async function readHistory(db: Prisma.TransactionClient, metrics: readonly string[], limit: number): Promise<Map<string, StatusPeriod[]>> {
  const history = new Map<string, StatusPeriod[]>();
  if (limit <= 0) return history;
  for (let start = 0; start < metrics.length; start += PAGE) {
    if (start > 0) await yieldToLoop();
    const rows = await db.$queryRawUnsafe<{ metric: string; status: string; from: Date; to: Date | null }[]>(
      `SELECT "metric", "status", "from", "to" FROM (
         SELECT "metric", "status", "valid_from" AS "from", "valid_to" AS "to",
                row_number() OVER (PARTITION BY "metric" ORDER BY "valid_from" DESC, "id" DESC) AS "n"
           FROM "status_changes" WHERE "metric" = ANY($1::text[])) p
        WHERE "n" <= $2 ORDER BY "metric", "n"`,
      metrics.slice(start, start + PAGE),
      limit,
    );
    for (const row of rows) {
      const periods = history.get(row.metric);
      const period = toStatusPeriod(row);
      if (periods) periods.push(period);
      else history.set(row.metric, [period]);
    }
  }
  return history;
}

export async function readStateIn(db: Prisma.TransactionClient, historyLimit: number): Promise<ReadState> {
  const scan = await newestSucceededScanRow(db);
  const statuses = await readStatuses(db);
  const observations = await readObservations(db);
  // Periods exist only for metrics with a status (both are written together).
  const history = await readHistory(db, statuses.map((s) => s.metric_name), historyLimit);
  return { scan: scan ? toScanRecord(scan) : null, statuses, observations, history };
}
