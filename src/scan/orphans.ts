// Scans left `running` by a process that died (SIGKILL, OOM, node lost) are marked `aborted`.
// Two rules, because a replica cannot tell a dead peer from a slow one by looking at the store:
// - Same host: the scan's owner is this host's process, and that process is gone: its pid is
//   not alive here, or it is this very pid with an earlier process start (a restarted container
//   runs pid 1 again). Known for certain at once, so a restart aborts its predecessor's scan
//   before it serves a request.
// - Any host: the heartbeat (SCAN_HEARTBEAT_MS) stopped for SCAN_ORPHANED_AFTER_MS. A live
//   replica elsewhere keeps beating and is never aborted by a peer's start.
// A live pid on this host that is not ours is left to the heartbeat rule: it may be another
// daemon on the same machine (or an unrelated process that reused the pid: then 60 s, not 0).
// On PostgreSQL a third rule comes first, whatever the host names and pids: a scan whose owner
// recorded its listener session's advisory lock is aborted once PostgreSQL no longer shows that
// lock (the owner's connection closed: the process died); see store/change-feed.ts.
import os from "node:os";
import type { RunningScanOwner, ScanOwner, Store } from "../store/store.js";

/**
 * This process, as recorded with the scans it runs. performance.timeOrigin is when the main
 * thread (where the daemon runs) started, fixed for the process's life: every call agrees.
 */
export function currentProcess(): ScanOwner {
  return { host: os.hostname(), pid: process.pid, process_started_at: new Date(Math.floor(performance.timeOrigin)) };
}

/** True when a process with this pid exists on this host (EPERM: it exists, owned by someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether `owner` is a process of this host that has ended (see the rules above). Pure. */
export function ownerIsDead(owner: ScanOwner, self: ScanOwner, isAlive: (pid: number) => boolean): boolean {
  if (owner.host !== self.host) return false;
  if (owner.pid === self.pid) return owner.process_started_at.getTime() < self.process_started_at.getTime();
  return !isAlive(owner.pid);
}

/** The running scans whose owner is known to be dead (same-host rule). Pure. */
export function scansOfDeadProcesses(running: readonly RunningScanOwner[], self: ScanOwner, isAlive: (pid: number) => boolean): string[] {
  return running.filter((s) => s.owner !== null && ownerIsDead(s.owner, self, isAlive)).map((s) => s.scan_id);
}

export interface OrphanSweep {
  /** scans of a dead process on this host */
  deadProcess: number;
  /** scans whose heartbeat went stale (any host) */
  stale: number;
  /** scans whose owner's store session is gone (any host; PostgreSQL) */
  lostSession: number;
}

/** Applies the rules: owners whose store session is gone, dead processes of this host, stale heartbeats. */
export async function abortOrphanedScans(
  store: Pick<Store, "runningScanOwners" | "abortScans" | "abortOrphanedScans"> & Partial<Pick<Store, "abortScansOfLostSessions">>,
  options: { self: ScanOwner; staleBefore: Date; isAlive?: (pid: number) => boolean },
): Promise<OrphanSweep> {
  const lostSession = (await store.abortScansOfLostSessions?.()) ?? 0;
  const dead = scansOfDeadProcesses(await store.runningScanOwners(), options.self, options.isAlive ?? pidAlive);
  const deadProcess = await store.abortScans(dead);
  const stale = await store.abortOrphanedScans(options.staleBefore);
  return { deadProcess, stale, lostSession };
}
