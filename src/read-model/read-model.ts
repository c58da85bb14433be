// The replica's in-memory view of the store: statuses, current check observations and recent
// status periods as of the newest succeeded scan. Requests and /metrics read it, never the
// store's full result set. Loaded whole at start-up and whenever the store shows a newer
// succeeded scan (another replica's), checked cheaply on each sweep; after a scan this replica
// ran, built from the last state plus what the scan wrote (apply-scan.ts), reloading whole when
// that cannot be trusted.
import { AsyncLocalStorage } from "node:async_hooks";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { CheckObservation } from "../evaluate/types.js";
import type { Incident } from "../incidents/types.js";
import type { Logger } from "../logger.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import { NO_FINDINGS, type CatalogFindings } from "../infer/catalog-findings.js";
import { blockedMetrics } from "../infer/blocked-metrics.js";
import type { ReadState, ScanRecord, StatusPeriod, Store, StoredMetricStatus } from "../store/store.js";
import { applyDelta } from "./apply-delta.js";
import { applyScan, type ScanWrite } from "./apply-scan.js";
import { createVerdictHolder, type VerdictHolder } from "./verdict-holder.js";

export interface ReadView {
  catalog: CatalogSnapshot;
  /** the newest succeeded scan, or null before the first */
  scan: ScanRecord | null;
  /** by metric; checked_at and scan_id say which scan last vouched for it */
  statuses: ReadonlyMap<string, StoredMetricStatus>;
  /** by check key */
  observations: ReadonlyMap<string, CheckObservation>;
  /** newest first */
  history: ReadonlyMap<string, readonly StatusPeriod[]>;
  /** when this view was built */
  built_at: Date;
  /** every incident the store keeps, newest opened first */
  incidents: readonly Incident[];
  /** metric -> why it cannot run (ClickHouse cannot parse its SQL, or an input's), as of the view's build */
  blocked: ReadonlyMap<string, string>;
}

export interface ReadModel {
  /** The current view, or the one pinned for the request being served (pinned). */
  view(): ReadView;
  /**
   * Runs `run` with the current view pinned: every view() in it (and in what it starts) answers
   * that view, so an answer and its X-Scan-Id header never come from two views.
   */
  pinned<T>(run: (view: ReadView) => T): T;
  /**
   * Reloads when the store's newest succeeded scan differs from the view's (always with force).
   * Resolves true when the view changed. A store failure rejects and keeps the last view.
   */
  refresh(options?: { force?: boolean }): Promise<boolean>;
  /**
   * After a scan this replica completed: the view becomes the last one plus what the scan wrote
   * ("applied"), or is reloaded whole when the store may hold more than that ("reloaded"). A
   * store failure during a reload rejects and keeps the last view.
   */
  applyScan(write: ScanWrite): Promise<"applied" | "reloaded">;
  /** Called with each new view (Prometheus gauges, cached serialisations). */
  onChange(listener: (view: ReadView) => void): void;
  /** The anomaly series' verdicts, as of the view's scan (verdict-holder.ts). */
  verdicts: VerdictHolder;
}

export interface ReadModelOptions {
  store: Pick<Store, "newestSucceededScan" | "readState"> & Partial<Pick<Store, "readScanDelta">>;
  getSnapshot: () => CatalogSnapshot;
  /** what the warehouse told about the catalogue (absent: nothing) */
  getFindings?: () => CatalogFindings;
  /** status periods kept per metric */
  historyLimit: number;
  logger?: Pick<Logger, "warn" | "debug" | "info">;
  /** after each refresh that changed the view: read whole, or only another replica's scan's rows */
  onRefreshed?: (how: "reload" | "delta", ms: number) => void;
}

/**
 * Statuses are rewritten in the store only when they change; a metric the newest scan covered
 * (same catalogue version) was checked by that scan, even if its row is older.
 */
export function buildView(catalog: CatalogSnapshot, state: ReadState, builtAt: Date, findings: CatalogFindings = NO_FINDINGS): ReadView {
  const scan = state.scan;
  const covered = scan !== null && scan.finished_at !== null && scan.catalog_version === catalog.version;
  const statuses = new Map<string, StoredMetricStatus>();
  for (const status of state.statuses) {
    statuses.set(
      status.metric_name,
      covered && catalog.testsByMetric.has(status.metric_name)
        ? { ...status, checked_at: scan.finished_at!, scan_id: scan.scan_id }
        : status,
    );
  }
  return {
    catalog,
    scan,
    statuses,
    observations: state.observations,
    history: state.history,
    built_at: builtAt,
    incidents: state.incidents ?? [],
    blocked: blockedMetrics(catalog, findings.sql_errors),
  };
}

const EMPTY: ReadState = { scan: null, statuses: [], observations: new Map(), history: new Map() };

export function createReadModel(options: ReadModelOptions): ReadModel {
  const { store, getSnapshot, historyLimit } = options;
  const pins = new AsyncLocalStorage<ReadView>();
  /** what the store held when the view was built (statuses before buildView dates them) */
  let state: ReadState = EMPTY;
  const findings = () => options.getFindings?.() ?? NO_FINDINGS;
  let current = buildView(getSnapshot(), state, new Date(), findings());
  let loaded = false;
  let inFlight: Promise<unknown> | null = null;
  const listeners: ((view: ReadView) => void)[] = [];
  const verdicts = createVerdictHolder();

  function publish(next: ReadState): void {
    state = next;
    current = buildView(getSnapshot(), next, new Date(), findings());
    loaded = true;
    for (const listener of listeners) {
      try {
        listener(current);
      } catch (error) {
        options.logger?.warn({ err: error }, "read model listener failed");
      }
    }
  }

  async function reload(force: boolean): Promise<boolean> {
    const started = performance.now();
    if (!force && loaded) {
      const newest = await store.newestSucceededScan();
      const sameCatalog = getSnapshot() === current.catalog;
      if (newest?.scan_id === current.scan?.scan_id && sameCatalog) return false;
      // Another replica's scan on top of the view's: only its rows (read-delta.ts), when the store
      // can tell they are all that changed.
      if (sameCatalog && newest && state.scan && store.readScanDelta) {
        const delta = await store.readScanDelta(state.scan, { historyLimit });
        if (delta) {
          publish(applyDelta(state, delta));
          options.onRefreshed?.("delta", performance.now() - started);
          return true;
        }
      }
    }
    publish(await store.readState({ historyLimit }));
    options.onRefreshed?.("reload", performance.now() - started);
    return true;
  }

  async function apply(write: ScanWrite): Promise<"applied" | "reloaded"> {
    // What the scan scored is what the store now holds (it wrote them unless overtaken).
    if (write.verdicts && write.scan.results_written !== false) verdicts.storeScan(write.scan.scan_id, write.verdicts);
    const result = loaded ? applyScan(state, write, historyLimit) : { reload: "the view was never loaded" };
    // The next view is built in another turn of the event loop: both halves at 10,000 metrics
    // held it for some 200 ms together. (Queued: nothing else changes the state meanwhile.)
    await yieldToLoop();
    if ("reload" in result) {
      options.logger?.info({ scan_id: write.scan.scan_id, reason: result.reload }, "reloading the read model after the scan");
      await reload(true);
      return "reloaded";
    }
    publish(result.state);
    return "applied";
  }

  /** One change at a time: each waits for the one running (whatever its outcome), then runs. */
  function queued<T>(run: () => Promise<T>): Promise<T> {
    const previous = inFlight;
    const next: Promise<T> = (async () => {
      if (previous) await previous.catch(() => undefined);
      return run();
    })().finally(() => {
      if (inFlight === next) inFlight = null;
    });
    inFlight = next;
    return next;
  }

  return {
    view: () => pins.getStore() ?? current,
    pinned: (run) => {
      const view = current;
      return pins.run(view, () => run(view));
    },
    refresh: ({ force = false } = {}) => queued(() => reload(force)),
    applyScan: (write) => queued(() => apply(write)),
    onChange(listener) {
      listeners.push(listener);
    },
    verdicts,
  };
}
