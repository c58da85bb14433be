// The one scan service behind POST /v1/reliability/scan, POST /v1/semantic-tests/run,
// the cron schedule and the start-up scan. One scan runs at a time per process; a trigger
// while one runs joins it (coalesced) instead of queueing a second pass over the warehouse.
// The scan itself is a sequence of steps (perform-scan.ts); this file only starts, joins and
// stops scans.
import { randomUUID } from "node:crypto";
import { AppError, unavailable } from "../errors/app-error.js";
import type { ScanRecord, ScanTrigger } from "../store/store.js";
import { createFailureRecorder } from "./failure-recorder.js";
import { currentProcess } from "./orphans.js";
import { performScan, SCAN_HEARTBEAT_MS, type Finished, type ScanSteps } from "./perform-scan.js";
import { createLoadMemory, createPassMemory } from "./replica-memory.js";
import type { ScanService, ScanServiceOptions } from "./types.js";

export type { ScanServiceOptions } from "./types.js";
export { SCAN_HEARTBEAT_MS } from "./perform-scan.js";
export { UNRECORDED_FAILURE_RETRY_MS } from "./failure-recorder.js";

/** A running scan whose heartbeat is older than this belongs to a dead process (4 missed beats). */
export const SCAN_ORPHANED_AFTER_MS = 4 * SCAN_HEARTBEAT_MS;

interface RunningScan {
  record: ScanRecord;
  done: Promise<Finished>;
  abort: AbortController;
}

/** What every scan of one service shares (memory, failure retries, pruning); `settle` waits for its housekeeping. */
function sharedSteps(options: ScanServiceOptions): { steps: ScanSteps; settle: () => Promise<void> } {
  const { store } = options;
  let pruning: Promise<void> = Promise.resolve();
  const failures = createFailureRecorder(store, options.logger);
  const steps: ScanSteps = {
    options,
    passes: options.incremental ? createPassMemory(store) : null,
    loads: createLoadMemory(store, options.loadClock !== undefined),
    judgement: { last: null },
    failures,
    loadClock: options.loadClock ?? (() => Math.floor(Date.now() / 1000)),
    // Pruning is housekeeping, not part of the scan: a trigger arriving meanwhile starts a new scan.
    prune(before, log) {
      pruning = store.prune(before).catch((error: unknown) => {
        log.warn({ err: error }, "pruning history failed");
      });
    },
  };
  return {
    steps,
    settle: async () => {
      await pruning;
      await failures.stop();
    },
  };
}

export function createScanService(options: ScanServiceOptions): ScanService {
  const { store } = options;
  let running: RunningScan | null = null;
  /** set while the scan row of a new scan is being written, before `running` is */
  let starting: Promise<RunningScan> | null = null;
  const owner = options.owner ?? currentProcess();
  const { steps, settle } = sharedSteps(options);

  async function start(trigger: ScanTrigger): Promise<RunningScan> {
    let record: ScanRecord;
    try {
      record = await store.createScan({ scan_id: randomUUID(), trigger, started_at: new Date(), owner });
    } catch (error) {
      throw unavailable(`cannot record the scan: the store is unavailable (${(error as Error).message})`, error);
    }
    const abort = new AbortController();
    const current: RunningScan = { record, abort, done: performScan(steps, record, abort) };
    running = current;
    void current.done.finally(() => {
      if (running === current) running = null;
    });
    return current;
  }

  async function trigger(trigger: ScanTrigger): Promise<{ scan: ScanRecord; coalesced: boolean }> {
    if (running) return { scan: running.record, coalesced: true };
    // A trigger that arrives while the scan row is still being written joins that start
    // (and shares its failure) instead of writing a second row nobody would ever finish.
    if (starting) return { scan: (await starting).record, coalesced: true };
    const pending = start(trigger);
    starting = pending;
    try {
      return { scan: (await pending).record, coalesced: false };
    } finally {
      if (starting === pending) starting = null;
    }
  }

  async function wait(scanId: string): Promise<ScanRecord> {
    if (running?.record.scan_id === scanId) return (await running.done).scan;
    const scan = await store.getScan(scanId);
    if (!scan) throw new AppError("not_found", `scan "${scanId}" not found`);
    return scan;
  }

  async function run(triggerName: ScanTrigger): Promise<Finished> {
    const { scan } = await trigger(triggerName);
    const finished = running?.record.scan_id === scan.scan_id ? await running.done : null;
    const record = finished?.scan ?? (await wait(scan.scan_id));
    if (record.status !== "succeeded") {
      throw unavailable(`scan ${record.scan_id} ${record.status}: ${record.error ?? "unknown error"}`);
    }
    return finished ?? { scan: record, observations: options.currentObservations?.() ?? new Map() };
  }

  async function stop(): Promise<void> {
    const current = running;
    if (current) {
      current.abort.abort();
      await current.done;
    }
    await settle();
  }

  return { trigger, wait, run, stop };
}
