// One scan, from its row in the store to its result on this replica, as a sequence of named
// steps: read what it starts from, read the warehouse (executeScan), write the store, remember
// what the store now holds, apply it to the read model, report. A failure at any step is the
// scan's failure, recorded in the store (or later, when the store is what failed).
import type { CheckObservation } from "../evaluate/types.js";
import type { Logger } from "../logger.js";
import type { ScanRecord, Store } from "../store/store.js";
import { executeScan } from "./execute-scan.js";
import type { Judgement } from "./judge-metrics.js";
import type { FailureRecorder } from "./failure-recorder.js";
import { loadsAfter, passAfter, type LoadMemory, type PassMemory } from "./replica-memory.js";
import { executeOptions, readScanInputs } from "./scan-inputs.js";
import { finishedScan, readModelWrite, succeededLog } from "./scan-write.js";
import type { ScanServiceOptions } from "./types.js";

/** How often the process running a scan proves it is alive in the store. */
export const SCAN_HEARTBEAT_MS = 15_000;

export interface Finished {
  scan: ScanRecord;
  observations: ReadonlyMap<string, CheckObservation>;
}

/** What every scan of one scan service shares. */
export interface ScanSteps {
  options: ScanServiceOptions;
  /** incremental scans only */
  passes: PassMemory | null;
  loads: LoadMemory;
  /** the last succeeded scan's judgement (scan/judge-metrics.ts): what an unchanged scan need not judge again */
  judgement: { last: Judgement | null };
  failures: FailureRecorder;
  loadClock: () => number;
  /** housekeeping after a succeeded scan, not part of it: history older than `before` */
  prune(before: Date, log: Logger): void;
}

export async function performScan(steps: ScanSteps, record: ScanRecord, abort: AbortController): Promise<Finished> {
  const started = performance.now();
  const log = steps.options.logger.child({ scan_id: record.scan_id, trigger: record.trigger });
  const heartbeat = startHeartbeat(steps.options.store, record.scan_id, log);
  try {
    return await succeed(steps, record, abort.signal, log, started);
  } catch (error) {
    return await fail(steps, record, error, log, started);
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * Other replicas abort running scans whose heartbeat went stale; a missed beat (store hiccup) is
 * only logged, the scan itself goes on.
 */
function startHeartbeat(store: Pick<Store, "heartbeatScan">, scanId: string, log: Logger): NodeJS.Timeout {
  const heartbeat = setInterval(() => {
    store.heartbeatScan(scanId, new Date()).catch((error: unknown) => log.warn({ err: error }, "scan heartbeat failed"));
  }, SCAN_HEARTBEAT_MS);
  heartbeat.unref();
  return heartbeat;
}

async function succeed(steps: ScanSteps, record: ScanRecord, signal: AbortSignal, log: Logger, started: number): Promise<Finished> {
  const { options } = steps;
  const { store, metrics } = options;
  const snapshot = options.getSnapshot();
  const inputs = await readScanInputs({ store, passes: steps.passes, loads: steps.loads, loadClock: steps.loadClock }, snapshot, log);
  const outcome = await executeScan(
    snapshot,
    options.warehouses,
    executeOptions(
      {
        scanId: record.scan_id,
        concurrency: options.concurrency,
        maxQuerySize: options.maxQuerySize,
        signal,
        onQuery: (seconds) => metrics.observeWarehouseQuery(seconds),
        ...(options.seriesCache ? { seriesCache: options.seriesCache } : {}),
        ...(options.loadClock ? { loadClock: options.loadClock } : {}),
        ...(steps.passes ? { reuseCache: steps.passes.cacheFor(snapshot) } : {}),
        ...(options.findings ? { findings: options.findings.current() } : {}),
        lastJudgement: steps.judgement.last,
      },
      inputs,
    ),
  );
  // What the warehouse told about the catalogue: the reads serve the newest.
  options.findings?.set(outcome.findings);
  const storeStarted = performance.now();
  await inputs.catalogWritten;
  const scan = await store.completeScan(
    finishedScan(record.scan_id, snapshot, outcome, options.heldVerdicts?.() ?? null, options.heldView?.() ?? null),
  );
  // The store now holds this scan's loads, series and pass: so does this replica, without reading them back.
  steps.loads.set(loadsAfter(inputs.loads, outcome.anomalies.loads, scan, inputs.clock));
  options.seriesCache?.storeScan(record.scan_id, outcome.anomalies.readings);
  steps.passes?.set(passAfter(inputs.previous, outcome.passes, outcome.observations, scan));
  steps.judgement.last = outcome.judgement;
  const storeSeconds = (performance.now() - storeStarted) / 1000;
  const readModelStarted = performance.now();
  // Pruned right after (below): the read model drops the same status periods now.
  const pruneBefore = new Date(Date.now() - options.retentionDays * 86_400_000);
  // The read model (and with it /metrics) follows the store: it takes in what was just written,
  // before the scan counts as done, so a caller told "succeeded" reads the new statuses.
  await options
    .afterScan?.(readModelWrite(scan, outcome, pruneBefore))
    .catch((error: unknown) => log.warn({ err: error }, "updating the read model after the scan failed"));
  const readModelSeconds = (performance.now() - readModelStarted) / 1000;
  const total = (performance.now() - started) / 1000;
  metrics.observeScan(record.trigger, "succeeded", total, scan.finished_at ?? new Date());
  metrics.countIsolationQueries(outcome.isolationQueries);
  log.info(succeededLog(scan, outcome, { total, store: storeSeconds, readModel: readModelSeconds }), "scan succeeded");
  steps.prune(pruneBefore, log);
  return { scan, observations: outcome.observations };
}

async function fail(steps: ScanSteps, record: ScanRecord, error: unknown, log: Logger, started: number): Promise<Finished> {
  const message = (error as Error).message;
  steps.options.metrics.observeScan(record.trigger, "failed", (performance.now() - started) / 1000);
  log.error({ err: error }, "scan failed");
  // The store may be the thing that is down: a failed write here must not crash the daemon,
  // and is written again once the store answers (else the row would read `running`).
  const finishedAt = new Date();
  const scan = await steps.options.store.failScan(record.scan_id, finishedAt, message).catch(() => {
    steps.failures.remember(record.scan_id, finishedAt, message);
    return { ...record, status: "failed" as const, error: message, finished_at: finishedAt };
  });
  return { scan, observations: new Map() };
}
