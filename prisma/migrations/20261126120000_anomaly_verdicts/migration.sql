-- Every anomaly series' verdicts, bucket by bucket, as the scan scored them: the chart of any
-- replica is drawn from here, never from the warehouse. One row per check (anomaly_buckets stays:
-- the history of what was ever flagged, which feedback is checked against).

-- CreateTable
CREATE TABLE "anomaly_verdicts" (
    "check_id" BIGINT NOT NULL,
    "verdicts" TEXT NOT NULL,
    "buckets" INTEGER NOT NULL,
    "scan_id" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "anomaly_verdicts_pkey" PRIMARY KEY ("check_id")
);

-- AddForeignKey
ALTER TABLE "anomaly_verdicts" ADD CONSTRAINT "anomaly_verdicts_check_id_fkey" FOREIGN KEY ("check_id") REFERENCES "checks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The verdicts are base64 of doubles, which pglz barely shrinks: stored out of line without
-- trying (a first scan writes some 30 MB; the attempt cost it about a third of its time).
ALTER TABLE "anomaly_verdicts" ALTER COLUMN "verdicts" SET STORAGE EXTERNAL;
