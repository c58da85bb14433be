-- Anomaly rules keep only what they flag and what people say about it, never whole series:
-- the buckets a check flagged (written when new or changed) and "expected" feedback on them.

-- CreateTable
CREATE TABLE "anomaly_buckets" (
    "check_id" BIGINT NOT NULL,
    "bucket_start" TIMESTAMPTZ(3) NOT NULL,
    "rule" TEXT NOT NULL,
    "measure" TEXT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "expected" DOUBLE PRECISION,
    "lower" DOUBLE PRECISION,
    "upper" DOUBLE PRECISION,
    "active" BOOLEAN NOT NULL,
    "first_scan_id" TEXT NOT NULL,
    "last_scan_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "anomaly_buckets_pkey" PRIMARY KEY ("check_id","bucket_start")
);

-- CreateTable
CREATE TABLE "anomaly_feedback" (
    "check_id" BIGINT NOT NULL,
    "bucket_start" TIMESTAMPTZ(3) NOT NULL,
    "metric" TEXT NOT NULL,
    "rule" TEXT NOT NULL,
    "measure" TEXT NOT NULL,
    "expected" BOOLEAN NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "anomaly_feedback_pkey" PRIMARY KEY ("check_id","bucket_start")
);

-- CreateIndex
CREATE INDEX "anomaly_buckets_active_check_id_idx" ON "anomaly_buckets"("active", "check_id");

-- CreateIndex
CREATE INDEX "anomaly_buckets_updated_at_idx" ON "anomaly_buckets"("updated_at");

-- AddForeignKey
ALTER TABLE "anomaly_buckets" ADD CONSTRAINT "anomaly_buckets_check_id_fkey" FOREIGN KEY ("check_id") REFERENCES "checks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "anomaly_feedback" ADD CONSTRAINT "anomaly_feedback_check_id_fkey" FOREIGN KEY ("check_id") REFERENCES "checks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
