// Which running scans a starting (or sweeping) process aborts: at once those of a dead process on
// its own host, after the heartbeat window those of any host; never a live process's scan.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { abortOrphanedScans, currentProcess, ownerIsDead, pidAlive, scansOfDeadProcesses } from "../../src/scan/orphans.js";
import { ABORTED_ERROR, createStore } from "../../src/store/prisma-store.js";
import type { ScanOwner } from "../../src/store/store.js";
import { storeTargets } from "../store/databases.js";

/** A pid no process can have: above the kernel's limit. */
const NO_SUCH_PID = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8").trim()) + 1;
const self: ScanOwner = { host: "pod-a", pid: 1, process_started_at: new Date("2026-11-25T10:00:00.000Z") };
const alive = (pids: number[]) => (pid: number) => pids.includes(pid);

describe("ownerIsDead", () => {
  it("is true for this host's earlier process with the same pid: a restarted container's pid 1", () => {
    expect(ownerIsDead({ ...self, process_started_at: new Date("2026-11-25T09:00:00.000Z") }, self, alive([1]))).toBe(true);
  });

  it("is false for this very process (another daemon in it) and never looks up its pid", () => {
    expect(ownerIsDead({ ...self }, self, () => false)).toBe(false);
  });

  it("is true for another pid of this host that is not alive, false for one that is", () => {
    expect(ownerIsDead({ ...self, pid: 42 }, self, alive([1]))).toBe(true);
    expect(ownerIsDead({ ...self, pid: 42 }, self, alive([1, 42]))).toBe(false);
  });

  it("is false for any other host, whatever its pid: that is the heartbeat's call", () => {
    expect(ownerIsDead({ ...self, host: "pod-b" }, self, () => false)).toBe(false);
    expect(ownerIsDead({ ...self, host: "pod-b", process_started_at: new Date(0) }, self, () => false)).toBe(false);
  });

  it("scansOfDeadProcesses keeps owners it cannot judge (rows from before owners were recorded)", () => {
    const running = [
      { scan_id: "legacy", owner: null },
      { scan_id: "dead", owner: { ...self, pid: 42 } },
      { scan_id: "peer", owner: { ...self, host: "pod-b" } },
    ];
    expect(scansOfDeadProcesses(running, self, alive([1]))).toEqual(["dead"]);
  });
});

describe("pidAlive and currentProcess", () => {
  it("knows this process and its parent are alive and a pid above pid_max is not", () => {
    expect(pidAlive(process.pid)).toBe(true);
    expect(pidAlive(process.ppid)).toBe(true);
    expect(pidAlive(NO_SUCH_PID)).toBe(false);
  });

  it("names this process by host, pid and start time, the same on every call", () => {
    const me = currentProcess();
    expect(me.pid).toBe(process.pid);
    expect(me).toEqual(currentProcess());
    expect(me.process_started_at.getTime()).toBeLessThanOrEqual(Date.now());
  });
});

describe.each(storeTargets)("abortOrphanedScans on $name", (target) => {
  it("aborts a dead process's scans of this host at once, stale ones of any host, and nothing alive", async () => {
    const db = await target.fresh();
    const store = await createStore(db.options);
    try {
      const me = currentProcess();
      const now = new Date();
      const earlier = new Date(me.process_started_at.getTime() - 60_000);
      const scans: [string, ScanOwner | undefined][] = [
        ["restarted", { ...me, process_started_at: earlier }], // this pid, an earlier process: dead
        ["dead_pid", { ...me, pid: NO_SUCH_PID }], // this host, a pid nobody has
        ["same_process", me], // another daemon inside this process: alive
        ["parent", { ...me, pid: process.ppid }], // a live pid of this host
        ["other_host", { ...me, host: `${me.host}-elsewhere`, pid: NO_SUCH_PID }], // another replica
        ["legacy", undefined], // written before owners were
      ];
      for (const [scan_id, owner] of scans) {
        await store.createScan({ scan_id, trigger: "schedule", started_at: now, ...(owner ? { owner } : {}) });
      }
      expect((await store.runningScanOwners()).find((s) => s.scan_id === "parent")).toEqual({
        scan_id: "parent",
        owner: { ...me, pid: process.ppid },
      });
      expect((await store.runningScanOwners()).find((s) => s.scan_id === "legacy")).toEqual({ scan_id: "legacy", owner: null });

      // Heartbeats are all fresh: only the same-host rule applies.
      const staleBefore = new Date(now.getTime() - 60_000);
      expect(await abortOrphanedScans(store, { self: me, staleBefore })).toEqual({ deadProcess: 2, stale: 0, lostSession: 0 });
      for (const id of ["restarted", "dead_pid"]) {
        expect(await store.getScan(id)).toMatchObject({ status: "aborted", error: ABORTED_ERROR });
      }
      const running = (await store.runningScanOwners()).map((s) => s.scan_id).sort();
      expect(running).toEqual(["legacy", "other_host", "parent", "same_process"]);

      // The heartbeat window passes without a beat from the other host's scan or the legacy one;
      // the live ones keep beating.
      const later = new Date(now.getTime() + 120_000);
      for (const id of ["parent", "same_process"]) await store.heartbeatScan(id, later);
      expect(await abortOrphanedScans(store, { self: me, staleBefore: new Date(later.getTime() - 60_000) })).toEqual({
        deadProcess: 0,
        stale: 2,
        lostSession: 0,
      });
      expect((await store.runningScanOwners()).map((s) => s.scan_id).sort()).toEqual(["parent", "same_process"]);
      // Aborting twice changes nothing.
      expect(await store.abortScans(["restarted", "parent_missing"])).toBe(0);
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
