-- History that grows with change, not with scans: check definitions once per catalogue version,
-- one result row per distinct check and only when it changes. The last results of each metric
-- are carried over as "legacy" checks of a "legacy" catalogue version, so every metric keeps
-- the results that explain its current status until the next scan replaces them.

-- AlterTable
ALTER TABLE "scans" ADD COLUMN "catalog_version" TEXT;

-- CreateTable
CREATE TABLE "catalog_versions" (
    "hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "catalog_versions_pkey" PRIMARY KEY ("hash")
);

-- CreateTable
CREATE TABLE "checks" (
    "id" BIGINT NOT NULL,
    "key" TEXT NOT NULL,
    "datasource" TEXT NOT NULL,
    "table_name" TEXT NOT NULL,
    "filter" TEXT,
    "rule" TEXT NOT NULL,
    "check" TEXT NOT NULL,
    "sample_sql" TEXT NOT NULL,

    CONSTRAINT "checks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "test_definitions" (
    "catalog_version" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "check_id" BIGINT NOT NULL,
    "rule" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "confidence" TEXT NOT NULL,
    "tolerance" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "test_definitions_pkey" PRIMARY KEY ("catalog_version","metric","check_id")
);

-- CreateTable
CREATE TABLE "check_results" (
    "id" BIGSERIAL NOT NULL,
    "check_id" BIGINT NOT NULL,
    "outcome" TEXT NOT NULL,
    "rows_affected" BIGINT NOT NULL,
    "rows_total" BIGINT NOT NULL,
    "message" TEXT NOT NULL,
    "sample_sql" TEXT,
    "scan_id" TEXT NOT NULL,
    "valid_from" TIMESTAMPTZ(3) NOT NULL,
    "valid_to" TIMESTAMPTZ(3),

    CONSTRAINT "check_results_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "test_definitions_check_id_idx" ON "test_definitions"("check_id");

-- CreateIndex
CREATE INDEX "check_results_check_id_valid_to_idx" ON "check_results"("check_id", "valid_to");

-- CreateIndex
CREATE INDEX "check_results_valid_to_idx" ON "check_results"("valid_to");

-- CreateIndex
CREATE INDEX "status_changes_metric_valid_to_idx" ON "status_changes"("metric", "valid_to");

-- AddForeignKey
ALTER TABLE "test_definitions" ADD CONSTRAINT "test_definitions_catalog_version_fkey" FOREIGN KEY ("catalog_version") REFERENCES "catalog_versions"("hash") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "test_definitions" ADD CONSTRAINT "test_definitions_check_id_fkey" FOREIGN KEY ("check_id") REFERENCES "checks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "check_results" ADD CONSTRAINT "check_results_check_id_fkey" FOREIGN KEY ("check_id") REFERENCES "checks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Carry over: each metric's newest result per (rule, check) from succeeded scans. The old rows
-- do not hold the table or filter, so each becomes a check of its own metric.
CREATE TEMPORARY TABLE "legacy_latest" AS
SELECT DISTINCT ON (r."metric", r."rule", r."check")
       r.*, s."finished_at",
       ('x' || substr(md5('legacy|' || r."metric" || '|' || r."rule" || '|' || r."check"), 1, 16))::bit(64)::bigint AS "legacy_check_id"
  FROM "test_results" r JOIN "scans" s ON s."id" = r."scan_id"
 WHERE s."status" = 'succeeded'
 ORDER BY r."metric", r."rule", r."check", s."finished_at" DESC, r."id" DESC;

INSERT INTO "catalog_versions" ("hash", "created_at")
SELECT 'legacy', now() WHERE EXISTS (SELECT 1 FROM "legacy_latest");

UPDATE "scans" SET "catalog_version" = 'legacy' WHERE "id" IN (SELECT DISTINCT "scan_id" FROM "test_results");

INSERT INTO "checks" ("id", "key", "datasource", "table_name", "filter", "rule", "check", "sample_sql")
SELECT "legacy_check_id", 'legacy|' || "metric" || '|' || "rule" || '|' || "check", 'default', '', NULL, "rule", "check", "sample_sql"
  FROM "legacy_latest";

-- Tolerances chosen so that judging the kept counts gives back the kept status.
INSERT INTO "test_definitions" ("catalog_version", "metric", "check_id", "rule", "name", "severity", "confidence", "tolerance")
SELECT 'legacy', "metric", "legacy_check_id", "rule", "name", "severity", "confidence", CASE WHEN "status" = 'warning' THEN 1 ELSE 0 END
  FROM "legacy_latest";

INSERT INTO "check_results" ("check_id", "outcome", "rows_affected", "rows_total", "message", "scan_id", "valid_from")
SELECT "legacy_check_id",
       CASE WHEN "message" LIKE 'not evaluated%' THEN 'not_evaluated' WHEN "message" LIKE 'not applicable%' THEN 'not_applicable' ELSE 'measured' END,
       "rows_affected", "rows_total", "message", "scan_id", "finished_at"
  FROM "legacy_latest";

DROP TABLE "legacy_latest";

-- DropTable
DROP TABLE "test_results";
