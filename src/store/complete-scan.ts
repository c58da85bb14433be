// completeScan's one transaction, a few set-based statements whatever the catalogue's size:
// the catalogue version (once), check results that changed, status periods that changed,
// current statuses that changed, the scan row.
import { writeAnomalyBuckets } from "./anomaly-store.js";
import { notifyChange } from "./change-feed.js";
import { writeLoads } from "./arrival-store.js";
import { writeAnomalyVerdicts } from "./anomaly-verdicts.js";
import { checkId } from "./check-id.js";
import { writePasses } from "./check-passes.js";
import { ensureCatalogVersion } from "./catalog-version.js";
import { updateIncidents, type OpenIncidentsMemo } from "./incident-store.js";
import { SCAN_COLUMNS, toScanRecord, type ScanRow } from "./mapping.js";
import type { Sql } from "./sql-session.js";
import { StoreError } from "./store-error.js";
import type { FinishedScan, ScanRecord } from "./store.js";
import type { Incident } from "../incidents/types.js";
import type { CheckObservation } from "../evaluate/types.js";
import { toColumnArrays, unnestFrom } from "./unnest.js";

/**
 * Serialises completions across replicas (and across the pool), so two scans finishing at once
 * cannot both open a status period for the same metric. Transaction-scoped: released on commit.
 */
const COMPLETE_LOCK_KEY = 72707370;

const OBSERVATION_COLUMNS = {
  check_id: "bigint",
  outcome: "text",
  rows_affected: "bigint",
  rows_total: "bigint",
  message: "text",
  sample_sql: "text",
};
const STATUS_COLUMNS = {
  metric: "text",
  status: "text",
  safe_to_use: "boolean",
  tests_total: "int4",
  tests_passing: "int4",
  tests_failing: "int4",
  tests_warning: "int4",
};

/** Counts may arrive as floats from upstream arithmetic; the columns are integers. */
const integer = (value: number) => String(Number.isFinite(value) ? Math.trunc(value) : 0);

/** Closes the period of every check whose value changed and opens one for it (and for new checks). */
async function writeObservations(sql: Sql, scan: FinishedScan, at: Date): Promise<void> {
  const rows = [...scan.observations].map(([key, o]) => [
    checkId(key),
    o.outcome,
    integer(o.rows_affected),
    integer(o.rows_total),
    o.message,
    o.sample_sql ?? null,
  ]);
  if (rows.length === 0) return;
  const n = Object.keys(OBSERVATION_COLUMNS).length;
  const incoming = `SELECT * FROM ${unnestFrom(OBSERVATION_COLUMNS)}`;
  const same = `(c."outcome", c."rows_affected", c."rows_total", c."message", c."sample_sql") IS NOT DISTINCT FROM (i."outcome", i."rows_affected", i."rows_total", i."message", i."sample_sql")`;
  // The final INSERT sees the table as it was before the CTE's UPDATE: a check with an open row
  // gets a new one only if that row was just closed. A check is in one statement only, so the
  // statements can split the rows: the driver serialises each statement's arrays in one go
  // (34,000 checks at 10,000 metrics held the event loop for some 100 ms).
  for (let start = 0; start < rows.length; start += OBSERVATIONS_PER_STATEMENT)
    await sql(
      `WITH i AS (${incoming}),
     closed AS (
       UPDATE "check_results" c SET "valid_to" = $${n + 1} FROM i
        WHERE c."check_id" = i."check_id" AND c."valid_to" IS NULL AND NOT ${same}
       RETURNING c."check_id")
     INSERT INTO "check_results" ("check_id", "outcome", "rows_affected", "rows_total", "message", "sample_sql", "scan_id", "valid_from")
     SELECT i.*, $${n + 2}, $${n + 1} FROM i
      WHERE i."check_id" IN (SELECT "check_id" FROM closed)
         OR NOT EXISTS (SELECT 1 FROM "check_results" c WHERE c."check_id" = i."check_id" AND c."valid_to" IS NULL)`,
      [...toColumnArrays(rows.slice(start, start + OBSERVATIONS_PER_STATEMENT), n), at, scan.scan_id],
    );
}

const OBSERVATIONS_PER_STATEMENT = 5_000;

/** Status periods and current statuses; rows whose values did not change are not touched. */
async function writeStatuses(sql: Sql, scan: FinishedScan, at: Date, previousScanId: string | null): Promise<void> {
  // 10,000 metrics in three statements on every scan, though few change: only those that did
  // when the store holds what the replica held (the statements leave an unchanged row alone).
  const held = scan.statusesChanged;
  const statuses = held && held.basis === previousScanId ? held.changed : scan.statuses;
  if (statuses.length === 0) return;
  const rows = statuses.map((s) => [
    s.metric_name,
    s.status,
    s.safe_to_use,
    s.tests.total,
    s.tests.passing,
    s.tests.failing,
    s.tests.warning,
  ]);
  const params = toColumnArrays(rows, Object.keys(STATUS_COLUMNS).length);
  const incoming = `SELECT * FROM ${unnestFrom(STATUS_COLUMNS)}`;
  const next = Object.keys(STATUS_COLUMNS).length + 1;

  await sql(
    `UPDATE "status_changes" s SET "valid_to" = $${next} FROM (${incoming}) i
      WHERE s."metric" = i."metric" AND s."valid_to" IS NULL AND s."status" <> i."status"`,
    [...params, at],
  );
  await sql(
    `INSERT INTO "status_changes" ("metric", "status", "valid_from")
     SELECT i."metric", i."status", $${next} FROM (${incoming}) i
      WHERE NOT EXISTS (SELECT 1 FROM "status_changes" s WHERE s."metric" = i."metric" AND s."valid_to" IS NULL)`,
    [...params, at],
  );
  // `since` moves only when the status itself changes; counts may change within one status.
  await sql(
    `INSERT INTO "metric_statuses" ("metric", "status", "safe_to_use", "tests_total", "tests_passing", "tests_failing", "tests_warning", "checked_at", "since", "scan_id")
     SELECT i.*, $${next}, $${next}, $${next + 1} FROM (${incoming}) i
     ON CONFLICT ("metric") DO UPDATE SET
       "status" = EXCLUDED."status", "safe_to_use" = EXCLUDED."safe_to_use",
       "tests_total" = EXCLUDED."tests_total", "tests_passing" = EXCLUDED."tests_passing",
       "tests_failing" = EXCLUDED."tests_failing", "tests_warning" = EXCLUDED."tests_warning",
       "checked_at" = EXCLUDED."checked_at", "scan_id" = EXCLUDED."scan_id",
       "since" = CASE WHEN "metric_statuses"."status" = EXCLUDED."status" THEN "metric_statuses"."since" ELSE EXCLUDED."since" END
     WHERE ("metric_statuses"."status", "metric_statuses"."safe_to_use", "metric_statuses"."tests_total", "metric_statuses"."tests_passing",
            "metric_statuses"."tests_failing", "metric_statuses"."tests_warning")
       IS DISTINCT FROM (EXCLUDED."status", EXCLUDED."safe_to_use", EXCLUDED."tests_total", EXCLUDED."tests_passing",
            EXCLUDED."tests_failing", EXCLUDED."tests_warning")`,
    [...params, at, scan.scan_id],
  );
}

/** The observations the store must be sent: all but those it holds as they are (a loop: there are 30,000 of them). */
function sentOnly(
  observations: FinishedScan["observations"],
  unchanged: ReadonlySet<string> | undefined,
  same: ReadonlySet<string> | undefined,
): Map<string, CheckObservation> {
  const sent = new Map<string, CheckObservation>();
  for (const [key, o] of observations) if (!unchanged?.has(key) && !same?.has(key)) sent.set(key, o);
  return sent;
}

/** `origin` names the writing store in the change notification (change-feed.ts). */
export async function completeScanIn(
  sql: Sql,
  scan: FinishedScan,
  now: () => Date,
  origin?: string,
  openIncidents?: OpenIncidentsMemo,
): Promise<ScanRecord> {
  await sql(`SELECT pg_advisory_xact_lock(${COMPLETE_LOCK_KEY})`);
  const [existing] = (
    await sql<{ status: string; started_at: Date }>(`SELECT "status", "started_at" FROM "scans" WHERE "id" = $1`, [scan.scan_id])
  ).rows;
  if (!existing) throw new StoreError(`scan ${scan.scan_id} not found`);
  // `aborted` is accepted: a replica that saw no heartbeat for a while marks a scan aborted, and
  // one that was only slow can still finish. Its results are real, so they are kept.
  if (existing.status !== "running" && existing.status !== "aborted") {
    throw new StoreError(`scan ${scan.scan_id} is already ${existing.status}`);
  }
  await ensureCatalogVersion(sql, scan.catalog.version, scan.catalog.tests, now(), origin);
  // Taken after the one-off catalogue write, so finished_at is when the results exist.
  const finishedAt = now();
  // A scan that started later already succeeded: this one read older data, and must not roll
  // statuses or results back. It is still recorded as succeeded, with its own summary.
  const overtaken = await sql(`SELECT 1 FROM "scans" WHERE "status" = 'succeeded' AND "started_at" > $1 LIMIT 1`, [existing.started_at]);
  // Under the lock no other completion runs: a read model holding this scan's results can add
  // this scan's writes to them instead of reading everything back (read-model/apply-scan.ts).
  const [previous] = (
    await sql<{ id: string }>(`SELECT "id" FROM "scans" WHERE "status" = 'succeeded' ORDER BY "finished_at" DESC, "id" DESC LIMIT 1`)
  ).rows;
  let incidents: Incident[] | undefined;
  if (overtaken.rows.length === 0) {
    // Results an incremental scan kept as they were are in the store as they are: not sent again.
    const unchanged = scan.unchanged;
    // And those the scan found as the replica held them, when the store still holds that scan's.
    const same = scan.observationsSame?.basis === previous?.id ? scan.observationsSame?.keys : undefined;
    const changed = unchanged?.size || same?.size ? { ...scan, observations: sentOnly(scan.observations, unchanged, same) } : scan;
    await writeObservations(sql, changed, finishedAt);
    await writePasses(sql, scan);
    await writeStatuses(sql, scan, finishedAt, previous?.id ?? null);
    await writeAnomalyBuckets(sql, scan, finishedAt);
    // Under the lock: the open incidents read here are the newest, and no other scan changes them.
    if (scan.problems) incidents = await updateIncidents(sql, scan.problems, scan.scan_id, finishedAt, openIncidents);
    await writeLoads(sql, scan.loads, finishedAt);
    await writeAnomalyVerdicts(sql, scan, finishedAt, previous?.id ?? null);
  }
  const { total, passing, failing, warning } = scan.summary;
  const [row] = (
    await sql<ScanRow>(
      `UPDATE "scans" SET "status" = 'succeeded', "finished_at" = $2, "error" = NULL, "tests_total" = $3, "tests_passing" = $4,
              "tests_failing" = $5, "tests_warning" = $6, "catalog_version" = $7
        WHERE "id" = $1 RETURNING ${SCAN_COLUMNS}`,
      [scan.scan_id, finishedAt, total, passing, failing, warning, scan.catalog.version],
    )
  ).rows;
  // Delivered to the other replicas on commit (their read models refresh within a second).
  await notifyChange(sql, { kind: "scan", id: scan.scan_id, ...(origin ? { origin } : {}) });
  return {
    ...toScanRecord(row!),
    results_written: overtaken.rows.length === 0,
    previous_scan_id: previous?.id ?? null,
    ...(incidents ? { incidents } : {}),
  };
}
