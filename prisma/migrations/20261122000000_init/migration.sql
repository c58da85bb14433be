-- CreateTable
CREATE TABLE "scans" (
    "id" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3),
    "error" TEXT,
    "tests_total" INTEGER,
    "tests_passing" INTEGER,
    "tests_failing" INTEGER,
    "tests_warning" INTEGER,

    CONSTRAINT "scans_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "test_results" (
    "id" BIGSERIAL NOT NULL,
    "scan_id" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "rule" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "check" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "confidence" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "rows_affected" BIGINT NOT NULL,
    "rows_total" BIGINT NOT NULL,
    "message" TEXT NOT NULL,
    "sample_sql" TEXT NOT NULL,

    CONSTRAINT "test_results_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "metric_statuses" (
    "metric" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "safe_to_use" BOOLEAN NOT NULL,
    "tests_total" INTEGER NOT NULL,
    "tests_passing" INTEGER NOT NULL,
    "tests_failing" INTEGER NOT NULL,
    "tests_warning" INTEGER NOT NULL,
    "checked_at" TIMESTAMPTZ(3) NOT NULL,
    "since" TIMESTAMPTZ(3) NOT NULL,
    "scan_id" TEXT NOT NULL,

    CONSTRAINT "metric_statuses_pkey" PRIMARY KEY ("metric")
);

-- CreateTable
CREATE TABLE "status_changes" (
    "id" BIGSERIAL NOT NULL,
    "metric" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "valid_from" TIMESTAMPTZ(3) NOT NULL,
    "valid_to" TIMESTAMPTZ(3),

    CONSTRAINT "status_changes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run_claims" (
    "name" TEXT NOT NULL,
    "fire_time" TIMESTAMPTZ(3) NOT NULL,
    "claimed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_claims_pkey" PRIMARY KEY ("name","fire_time")
);

-- CreateIndex
CREATE INDEX "scans_status_finished_at_idx" ON "scans"("status", "finished_at");

-- CreateIndex
CREATE INDEX "test_results_metric_scan_id_idx" ON "test_results"("metric", "scan_id");

-- CreateIndex
CREATE INDEX "test_results_scan_id_idx" ON "test_results"("scan_id");

-- CreateIndex
CREATE INDEX "status_changes_metric_valid_from_idx" ON "status_changes"("metric", "valid_from");

-- AddForeignKey
ALTER TABLE "test_results" ADD CONSTRAINT "test_results_scan_id_fkey" FOREIGN KEY ("scan_id") REFERENCES "scans"("id") ON DELETE CASCADE ON UPDATE CASCADE;
