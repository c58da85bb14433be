-- The process running a scan (host name, pid, process start time). A process that starts aborts
-- at once the running scans of a dead process on its own host (a restarted container or
-- service), instead of waiting for their heartbeat to go stale; other hosts' scans are still
-- judged by their heartbeat only.
ALTER TABLE "scans" ADD COLUMN "owner_host" TEXT,
ADD COLUMN "owner_pid" INTEGER,
ADD COLUMN "owner_started_at" TIMESTAMPTZ(3);
