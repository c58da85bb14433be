-- The session advisory lock the scan's process holds on its store change listener (see
-- src/store/change-feed.ts): while PostgreSQL shows it granted, the owner's connection is open.
-- When it is gone, every replica aborts the scan at once, whatever the host names or pids;
-- null (an owner with no listener, PGlite, older rows) leaves the scan to the heartbeat rule.
ALTER TABLE "scans" ADD COLUMN "owner_session_key" INTEGER;
