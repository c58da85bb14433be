-- A running scan's owner refreshes heartbeat_at; a replica that starts aborts only scans whose
-- heartbeat went stale, never a scan another live replica is running.
ALTER TABLE "scans" ADD COLUMN "heartbeat_at" TIMESTAMPTZ(3);
