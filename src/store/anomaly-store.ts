// Anomaly rows in the store: the buckets checks flagged and the feedback on them. A scan writes
// flagged buckets inside its one transaction, set-based, and only what changed: a bucket first
// flagged, one whose values moved (late rows), one a scan no longer flags. Unchanged data adds
// nothing, however long the series.
import { notifyChange } from "./change-feed.js";
import { checkId } from "./check-id.js";
import type { Sql } from "./sql-session.js";
import type { AnomalyFeedbackRecord, FinishedScan, StoredAnomalyBucket } from "./store.js";
import { toColumnArrays, unnestFrom } from "./unnest.js";

const BUCKET_COLUMNS = {
  check_id: "bigint",
  bucket_start: "timestamptz",
  rule: "text",
  measure: "text",
  value: "float8",
  expected: "float8",
  lower: "float8",
  upper: "float8",
};

/** NaN and infinities travel as NULL (a missing expectation), never as a float PostgreSQL would keep. */
const finite = (value: number | null): number | null => (value !== null && Number.isFinite(value) ? value : null);

export async function writeAnomalyBuckets(sql: Sql, scan: FinishedScan, at: Date): Promise<void> {
  const anomalies = scan.anomalies;
  if (!anomalies) return;
  const rows = anomalies.flagged.map((b) => [
    checkId(b.check_key),
    b.start.toISOString(),
    b.rule,
    b.measure,
    Number.isFinite(b.value) ? b.value : 0,
    finite(b.expected),
    finite(b.lower),
    finite(b.upper),
  ]);
  const n = Object.keys(BUCKET_COLUMNS).length;
  if (rows.length > 0) {
    await sql(
      `INSERT INTO "anomaly_buckets" ("check_id", "bucket_start", "rule", "measure", "value", "expected", "lower", "upper",
                                      "active", "first_scan_id", "last_scan_id", "created_at", "updated_at")
       SELECT t.*, true, $${n + 1}, $${n + 1}, $${n + 2}, $${n + 2} FROM ${unnestFrom(BUCKET_COLUMNS)}
       ON CONFLICT ("check_id", "bucket_start") DO UPDATE SET
         "rule" = EXCLUDED."rule", "measure" = EXCLUDED."measure", "value" = EXCLUDED."value", "expected" = EXCLUDED."expected",
         "lower" = EXCLUDED."lower", "upper" = EXCLUDED."upper", "active" = true,
         "last_scan_id" = EXCLUDED."last_scan_id", "updated_at" = EXCLUDED."updated_at"
       WHERE ("anomaly_buckets"."value", "anomaly_buckets"."expected", "anomaly_buckets"."lower", "anomaly_buckets"."upper",
              "anomaly_buckets"."active", "anomaly_buckets"."measure")
         IS DISTINCT FROM (EXCLUDED."value", EXCLUDED."expected", EXCLUDED."lower", EXCLUDED."upper", true, EXCLUDED."measure")`,
      [...toColumnArrays(rows, n), scan.scan_id, at],
    );
  }
  // Buckets of the checks this scan scored that it no longer flags.
  if (anomalies.judged.length === 0) return;
  await sql(
    `UPDATE "anomaly_buckets" a SET "active" = false, "last_scan_id" = $4, "updated_at" = $5
      WHERE a."active" AND a."check_id" = ANY($1::bigint[])
        AND NOT EXISTS (SELECT 1 FROM unnest($2::bigint[], $3::timestamptz[]) AS f("check_id", "bucket_start")
                         WHERE f."check_id" = a."check_id" AND f."bucket_start" = a."bucket_start")`,
    [anomalies.judged.map(checkId), rows.map((r) => r[0]), rows.map((r) => r[1]), scan.scan_id, at],
  );
}

interface BucketRow {
  key: string;
  bucket_start: Date;
  rule: string;
  measure: string;
  value: number;
  expected: number | null;
  lower: number | null;
  upper: number | null;
  active: boolean;
  first_scan_id: string;
  last_scan_id: string;
  created_at: Date;
  updated_at: Date;
}

export async function readAnomalyBuckets(sql: Sql, checkKeys: readonly string[]): Promise<StoredAnomalyBucket[]> {
  if (checkKeys.length === 0) return [];
  const { rows } = await sql<BucketRow>(
    `SELECT c."key", a."bucket_start", a."rule", a."measure", a."value", a."expected", a."lower", a."upper", a."active",
            a."first_scan_id", a."last_scan_id", a."created_at", a."updated_at"
       FROM "anomaly_buckets" a JOIN "checks" c ON c."id" = a."check_id"
      WHERE a."check_id" = ANY($1::bigint[]) ORDER BY a."bucket_start", c."key"`,
    [checkKeys.map(checkId)],
  );
  return rows.map((r) => ({
    check_key: r.key,
    rule: r.rule,
    measure: r.measure,
    start: r.bucket_start,
    value: r.value,
    expected: r.expected,
    lower: r.lower,
    upper: r.upper,
    active: r.active,
    first_scan_id: r.first_scan_id,
    last_scan_id: r.last_scan_id,
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

interface FeedbackRow {
  key: string;
  bucket_start: Date;
  metric: string;
  rule: string;
  measure: string;
  created_at: Date;
}

const toFeedback = (r: FeedbackRow): AnomalyFeedbackRecord => ({
  check_key: r.key,
  start: r.bucket_start,
  metric: r.metric,
  rule: r.rule,
  measure: r.measure,
  expected: true,
  created_at: r.created_at,
});

export async function readAnomalyFeedback(sql: Sql): Promise<AnomalyFeedbackRecord[]> {
  const { rows } = await sql<FeedbackRow>(
    `SELECT c."key", f."bucket_start", f."metric", f."rule", f."measure", f."created_at"
       FROM "anomaly_feedback" f JOIN "checks" c ON c."id" = f."check_id" WHERE f."expected"
      ORDER BY f."bucket_start", c."key"`,
  );
  return rows.map(toFeedback);
}

/** Idempotent: the first record of a bucket is kept (and returned). */
export async function insertAnomalyFeedback(
  sql: Sql,
  feedback: Omit<AnomalyFeedbackRecord, "created_at" | "expected">,
  at: Date,
  origin?: string,
): Promise<AnomalyFeedbackRecord> {
  const id = checkId(feedback.check_key);
  await sql(
    `INSERT INTO "anomaly_feedback" ("check_id", "bucket_start", "metric", "rule", "measure", "expected", "created_at")
     VALUES ($1::bigint, $2, $3, $4, $5, true, $6) ON CONFLICT ("check_id", "bucket_start") DO NOTHING`,
    [id, feedback.start, feedback.metric, feedback.rule, feedback.measure, at],
  );
  await notifyChange(sql, {
    kind: "feedback",
    id: `${feedback.check_key}@${feedback.start.toISOString()}`,
    check_key: feedback.check_key,
    ...(origin ? { origin } : {}),
  });
  const { rows } = await sql<Omit<FeedbackRow, "key">>(
    `SELECT "bucket_start", "metric", "rule", "measure", "created_at" FROM "anomaly_feedback" WHERE "check_id" = $1::bigint AND "bucket_start" = $2`,
    [id, feedback.start],
  );
  return toFeedback({ ...rows[0]!, key: feedback.check_key });
}
