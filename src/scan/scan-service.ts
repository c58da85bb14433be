// The one scan service behind POST /v1/reliability/scan, POST /v1/semantic-tests/run,
// the cron schedule and the start-up scan. One scan runs at a time per process; a trigger
// while one runs joins it (coalesced) instead of queueing a second pass over the warehouse.
import { randomUUID } from "node:crypto";
import { AppError, unavailable } from "../errors/app-error.js";
import { feedbackIndex } from "../evaluate/anomaly-observation.js";
import { applyLoadChange, type LoadHistory } from "../evaluate/load-arrivals.js";
import type { CheckObservation } from "../evaluate/types.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics/prometheus.js";
import { nextPass, type PreviousCheck } from "../evaluate/check-pass.js";
import type { ScanWrite } from "../read-model/apply-scan.js";
import type { SeriesCache } from "../read-model/series-cache.js";
import { verdictChanges } from "../read-model/verdict-holder.js";
import type { SeriesVerdicts } from "../evaluate/series-verdicts.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import type { FindingsHolder } from "../infer/catalog-findings.js";
import type { ScanOwner, ScanRecord, ScanTrigger, Store, VerdictsWrite } from "../store/store.js";
import type { Warehouse } from "../warehouse/warehouse.js";
import { failingTests } from "../incidents/failing-tests.js";
import { groupProblems } from "../incidents/group-problems.js";
import { executeScan } from "./execute-scan.js";
import type { IncrementalInput } from "./incremental.js";
import { currentProcess } from "./orphans.js";
import type { ScanService } from "./types.js";

/** How often the process running a scan proves it is alive in the store. */
export const SCAN_HEARTBEAT_MS = 15_000;
/** A running scan whose heartbeat is older than this belongs to a dead process (4 missed beats). */
export const SCAN_ORPHANED_AFTER_MS = 4 * SCAN_HEARTBEAT_MS;
/**
 * How often a failure the store could not record (it was down when the scan failed) is written
 * again, so the scan does not read `running` once the store is back.
 */
export const UNRECORDED_FAILURE_RETRY_MS = 2_000;

export interface ScanServiceOptions {
  getSnapshot: () => CatalogSnapshot;
  /** what the warehouse told about the catalogue: each scan starts from it and replaces it */
  findings?: FindingsHolder;
  warehouses: ReadonlyMap<string, Warehouse>;
  store: Store;
  metrics: Metrics;
  logger: Logger;
  concurrency: number;
  maxQuerySize: number;
  retentionDays: number;
  /** SCAN_INCREMENTAL: checks on tables unchanged since the last pass keep its results (main.ts: on unless turned off) */
  incremental?: boolean;
  /** after a scan is stored, with what it wrote: the read model applies it (or reloads from the store) */
  afterScan?: (write: ScanWrite) => Promise<unknown>;
  /** the observations the replica serves, for a run that joined a scan it did not start */
  currentObservations?: () => ReadonlyMap<string, CheckObservation>;
  /** recorded with each scan, so a restarted process can abort its predecessor's (scan/orphans.ts) */
  owner?: ScanOwner;
  /** where a succeeded scan leaves its anomaly series (an unchanged table's are judged again from them) */
  seriesCache?: SeriesCache;
  /**
   * The clock freshness_anomaly sees loads at, unix seconds (default: the warehouse server's).
   * Tests set it to play days of loads in minutes.
   */
  loadClock?: () => number;
  /** the verdicts the read model holds (read-model/verdict-holder.ts): the basis of the scan's verdicts write */
  heldVerdicts?: () => { scanId: string | null; verdicts: ReadonlyMap<string, SeriesVerdicts> };
}

type Finished = { scan: ScanRecord; observations: ReadonlyMap<string, CheckObservation> };

interface RunningScan {
  record: ScanRecord;
  done: Promise<Finished>;
  abort: AbortController;
}

/** Seconds to the millisecond, for logs without float noise. */
const round3 = (seconds: number) => Math.round(seconds * 1000) / 1000;

export function createScanService(options: ScanServiceOptions): ScanService {
  const { store, logger, metrics } = options;
  let running: RunningScan | null = null;
  /** set while the scan row of a new scan is being written, before `running` is */
  let starting: Promise<RunningScan> | null = null;
  let pruning: Promise<void> = Promise.resolve();
  const owner = options.owner ?? currentProcess();
  /** failures the store was down to record: written again until it takes them */
  const unrecorded = new Map<string, { finishedAt: Date; error: string }>();
  let retryTimer: NodeJS.Timeout | null = null;
  let recording: Promise<void> | null = null;

  /** One pass at a time over the unrecorded failures; stops at the first the store refuses. */
  function recordFailures(): Promise<void> {
    recording ??= (async () => {
      for (const [scanId, failure] of unrecorded) {
        try {
          await store.failScan(scanId, failure.finishedAt, failure.error);
        } catch {
          return; // still down: the next tick tries again
        }
        unrecorded.delete(scanId);
        logger.info({ scan_id: scanId }, "recorded a scan's failure once the store was back");
      }
      if (retryTimer) clearInterval(retryTimer);
      retryTimer = null;
    })().finally(() => {
      recording = null;
    });
    return recording;
  }

  function rememberFailure(scanId: string, finishedAt: Date, error: string): void {
    unrecorded.set(scanId, { finishedAt, error });
    retryTimer ??= setInterval(() => void recordFailures(), UNRECORDED_FAILURE_RETRY_MS);
    retryTimer.unref();
  }

  /** the last pass this replica knows, tagged with the newest succeeded scan it matches */
  let lastPass: { scanId: string | null; checks: Map<string, PreviousCheck> } | null = null;
  /** per catalogue snapshot: the checks' identities, computed again only when the schema changes */
  const reuseCaches = new WeakMap<CatalogSnapshot, NonNullable<IncrementalInput["cache"]>>();

  function reuseCache(snapshot: CatalogSnapshot): NonNullable<IncrementalInput["cache"]> {
    let cache = reuseCaches.get(snapshot);
    if (!cache) reuseCaches.set(snapshot, (cache = {}));
    return cache;
  }

  /** freshness_anomaly's loads as of the newest succeeded scan this replica knows (read again when another scanned) */
  let knownLoads: { scanId: string | null; histories: Map<string, LoadHistory>; clock: number | null } | null = null;
  const loadClock = options.loadClock ?? (() => Math.floor(Date.now() / 1000));

  async function loadHistories(snapshot: CatalogSnapshot): Promise<typeof knownLoads> {
    if (!snapshot.tests.some((t) => t.probe.type === "load_cadence")) return null;
    const newest = await store.newestSucceededScan();
    if (knownLoads?.scanId !== (newest?.scan_id ?? null)) {
      // Another replica (or a previous process) scanned last: its start bounds when a load landed.
      const clock = options.loadClock || !newest ? null : Math.floor(newest.started_at.getTime() / 1000);
      knownLoads = { scanId: newest?.scan_id ?? null, histories: await store.readLoads(), clock };
    }
    return knownLoads;
  }

  /** This replica's last pass, or the store's when another replica (or a previous process) scanned since. */
  async function previousPass(): Promise<Map<string, PreviousCheck>> {
    const newest = (await store.newestSucceededScan())?.scan_id ?? null;
    if (lastPass?.scanId !== newest) lastPass = { scanId: newest, checks: await store.readPasses() };
    return lastPass.checks;
  }

  /** The scan's verdicts against those the replica holds: the store is sent only what changed. */
  function verdictsWrite(all: ReadonlyMap<string, SeriesVerdicts>): VerdictsWrite {
    const held = options.heldVerdicts?.() ?? { scanId: null, verdicts: new Map() };
    if (held.scanId === null) return { all, changed: [...all.keys()], removed: [], basis: null };
    return { all, ...verdictChanges(held.verdicts, all), basis: held.scanId };
  }

  async function execute(record: ScanRecord, abort: AbortController): Promise<Finished> {
    const started = performance.now();
    const log = logger.child({ scan_id: record.scan_id, trigger: record.trigger });
    // Other replicas abort running scans whose heartbeat went stale; a missed beat (store
    // hiccup) is only logged, the scan itself goes on.
    const heartbeat = setInterval(() => {
      store.heartbeatScan(record.scan_id, new Date()).catch((error: unknown) => log.warn({ err: error }, "scan heartbeat failed"));
    }, SCAN_HEARTBEAT_MS);
    heartbeat.unref();
    try {
      const snapshot = options.getSnapshot();
      // A new catalogue version's checks and test definitions (about 130,000 rows at 10,000
      // metrics) go to the store while the warehouse is read, not in completeScan's transaction,
      // which writes them itself if this failed.
      const catalogWritten = store
        .writeCatalogVersion({ version: snapshot.version, tests: snapshot.tests })
        .catch((error: unknown) => log.warn({ err: error }, "writing the catalogue version at the scan's start failed"));
      const previous = options.incremental ? await previousPass() : null;
      // Buckets people marked "expected" go back into training and never alert.
      const feedback = feedbackIndex(await store.anomalyFeedback());
      const known = await loadHistories(snapshot);
      const histories = known?.histories ?? null;
      const scanClock = loadClock();
      const outcome = await executeScan(snapshot, options.warehouses, {
        scanId: record.scan_id,
        concurrency: options.concurrency,
        maxQuerySize: options.maxQuerySize,
        signal: abort.signal,
        onQuery: (seconds) => metrics.observeWarehouseQuery(seconds),
        anomalies: {
          feedback,
          ...(options.seriesCache ? { cache: options.seriesCache } : {}),
          ...(known
            ? {
                loads: {
                  histories: known.histories,
                  ...(options.loadClock ? { clock: options.loadClock } : {}),
                  ...(known.clock !== null ? { previousScan: known.clock } : {}),
                },
              }
            : {}),
        },
        ...(previous ? { incremental: { previous, cache: reuseCache(snapshot) } } : {}),
        ...(options.findings ? { findings: options.findings.current() } : {}),
      });
      options.findings?.set(outcome.findings);
      // Failing tests by root table: the store opens, extends or resolves incidents with them.
      const problems = groupProblems(failingTests(snapshot.tests, outcome.observations, outcome.blocked), snapshot.metrics);
      const storeStarted = performance.now();
      await catalogWritten;
      const scan = await store.completeScan({
        scan_id: record.scan_id,
        catalog: { version: snapshot.version, tests: snapshot.tests },
        observations: outcome.observations,
        statuses: outcome.statuses,
        summary: outcome.summary,
        anomalies: {
          flagged: outcome.anomalies.flagged,
          judged: outcome.anomalies.judged,
          verdicts: verdictsWrite(outcome.anomalies.verdicts),
        },
        ...(outcome.passes ? { passes: outcome.passes } : {}),
        ...(outcome.unchanged ? { unchanged: outcome.unchanged } : {}),
        problems,
        ...(outcome.anomalies.loads.size > 0 ? { loads: outcome.anomalies.loads } : {}),
      });
      // The store now holds this scan's loads: so does this replica, without reading them back.
      if (histories && knownLoads && scan.results_written !== false) {
        for (const [series, change] of outcome.anomalies.loads) histories.set(series, applyLoadChange(histories.get(series), change));
        knownLoads = { scanId: scan.scan_id, histories, clock: scanClock };
      } else knownLoads = null;
      options.seriesCache?.storeScan(record.scan_id, outcome.anomalies.readings);
      // What the store now holds, unless a later-started scan had already written newer results.
      lastPass =
        previous && outcome.passes && scan.results_written !== false
          ? { scanId: scan.scan_id, checks: nextPass(previous, outcome.passes, outcome.observations) }
          : null;
      const storeSeconds = (performance.now() - storeStarted) / 1000;
      const readModelStarted = performance.now();
      // Pruned right after (below): the read model drops the same status periods now.
      const pruneBefore = new Date(Date.now() - options.retentionDays * 86_400_000);
      // The read model (and with it /metrics) follows the store: it takes in what was just written,
      // before the scan counts as done, so a caller told "succeeded" reads the new statuses.
      await options
        .afterScan?.({
          scan,
          statuses: outcome.statuses,
          observations: outcome.observations,
          ...(outcome.unchanged ? { unchanged: outcome.unchanged } : {}),
          prunedBefore: pruneBefore,
          verdicts: outcome.anomalies.verdicts,
        })
        .catch((error: unknown) => log.warn({ err: error }, "updating the read model after the scan failed"));
      const readModelSeconds = (performance.now() - readModelStarted) / 1000;
      const total = (performance.now() - started) / 1000;
      metrics.observeScan(record.trigger, "succeeded", total, scan.finished_at ?? new Date());
      metrics.countIsolationQueries(outcome.isolationQueries);
      const timings = {
        total: round3(total),
        warehouse: round3(outcome.timings.warehouse),
        evaluate: round3(outcome.timings.evaluate),
        series: round3(outcome.timings.series),
        store: round3(storeSeconds),
        read_model: round3(readModelSeconds),
      };
      log.info(
        {
          seconds: timings,
          summary: scan.summary,
          isolation_queries: outcome.isolationQueries,
          series_queries: outcome.anomalies.queries,
          series_reused: outcome.anomalies.reused,
          anomalies_flagged: outcome.anomalies.flagged.length,
          incidents_changed: scan.incidents?.length ?? 0,
          ...(outcome.incremental ? { incremental: outcome.incremental } : {}),
        },
        "scan succeeded",
      );
      // Pruning is housekeeping, not part of the scan: a trigger arriving meanwhile starts a new scan.
      pruning = store.prune(pruneBefore).catch((error: unknown) => {
        log.warn({ err: error }, "pruning history failed");
      });
      return { scan, observations: outcome.observations };
    } catch (error) {
      const message = (error as Error).message;
      metrics.observeScan(record.trigger, "failed", (performance.now() - started) / 1000);
      log.error({ err: error }, "scan failed");
      // The store may be the thing that is down: a failed write here must not crash the daemon,
      // and is written again once the store answers (else the row would read `running`).
      const finishedAt = new Date();
      const scan = await store.failScan(record.scan_id, finishedAt, message).catch(() => {
        rememberFailure(record.scan_id, finishedAt, message);
        return { ...record, status: "failed" as const, error: message, finished_at: finishedAt };
      });
      return { scan, observations: new Map() };
    } finally {
      clearInterval(heartbeat);
    }
  }

  async function start(trigger: ScanTrigger): Promise<RunningScan> {
    let record: ScanRecord;
    try {
      record = await store.createScan({ scan_id: randomUUID(), trigger, started_at: new Date(), owner });
    } catch (error) {
      throw unavailable(`cannot record the scan: the store is unavailable (${(error as Error).message})`, error);
    }
    const abort = new AbortController();
    const current: RunningScan = { record, abort, done: execute(record, abort) };
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
    await pruning;
    if (retryTimer) clearInterval(retryTimer);
    retryTimer = null;
    // A last try; what the store still cannot take is aborted by the next start (scan/orphans.ts).
    await recordFailures();
  }

  return { trigger, wait, run, stop };
}
