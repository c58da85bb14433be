-- Incremental scans: under which conditions each check's current result was measured (a hash of
-- its SQL and of the system.parts fingerprints of the tables it reads), so a scan of unchanged
-- tables keeps the result without reading them. Empty at first: the next scan reads everything.

-- CreateTable
CREATE TABLE "check_passes" (
    "check_id" BIGINT NOT NULL,
    "basis" TEXT NOT NULL,
    "newest" BIGINT,
    "scan_id" TEXT NOT NULL,

    CONSTRAINT "check_passes_pkey" PRIMARY KEY ("check_id")
);

-- AddForeignKey
ALTER TABLE "check_passes" ADD CONSTRAINT "check_passes_check_id_fkey" FOREIGN KEY ("check_id") REFERENCES "checks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
