// Reliability reads come from the store (shared by every replica), never from process memory,
// so any replica answers the same. The catalogue snapshot decides which metrics exist.
import { AppError, notFound, unavailable } from "../errors/app-error.js";
import type { Metrics } from "../metrics/prometheus.js";
import type { ScanService } from "../scan/types.js";
import type { Store } from "../store/store.js";
import { findAffectedMetrics } from "./affected-by.js";
import type { CatalogSnapshot } from "./catalog-snapshot.js";
import { buildMetricStatus, buildStatusListing } from "./status-listing.js";
import type { ReliabilityService } from "./types.js";
import { scanView } from "./views.js";

export interface ReliabilityServiceOptions {
  getSnapshot: () => CatalogSnapshot;
  store: Store;
  scanService: ScanService;
  /** status periods returned by GET /v1/reliability/status/:name (newest first) */
  historyLimit?: number;
}

/** A store outage is a retryable 503 for the caller (circuit breakers), not an opaque 500. */
async function fromStore<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw unavailable("the status store is unavailable", error);
  }
}

export function createReliabilityService(options: ReliabilityServiceOptions): ReliabilityService & {
  refreshMetrics(metrics: Metrics): Promise<void>;
} {
  const { getSnapshot, store, scanService } = options;
  const historyLimit = options.historyLimit ?? 50;
  const metricNames = () => getSnapshot().metrics.map((m) => m.name);

  return {
    async status() {
      const stored = await fromStore(() => store.latestStatuses());
      return buildStatusListing(metricNames(), stored);
    },

    async metricStatus(name) {
      if (!getSnapshot().metrics.some((m) => m.name === name)) throw notFound(`metric "${name}" not found`);
      const [stored, results, history] = await fromStore(() =>
        Promise.all([store.latestStatus(name), store.latestResultsFor(name), store.statusHistory(name, historyLimit)]),
      );
      return buildMetricStatus(name, stored, results, history);
    },

    async affectedBy(table) {
      return findAffectedMetrics(getSnapshot().metrics, table);
    },

    async triggerScan({ wait }) {
      const { scan, coalesced } = await scanService.trigger("manual");
      const finished = wait ? await scanService.wait(scan.scan_id) : scan;
      return { ...scanView(finished), coalesced };
    },

    async getScan(id) {
      const scan = await fromStore(() => store.getScan(id));
      if (!scan) throw notFound(`scan "${id}" not found`);
      return scanView(scan);
    },

    /**
     * Sets the Prometheus gauges from the store. Run at start and periodically: with several
     * replicas only one runs each scan, and the others must not export stale statuses.
     */
    async refreshMetrics(metrics) {
      const listing = buildStatusListing(metricNames(), await store.latestStatuses());
      metrics.setStatuses(listing.metrics);
      const latest = await store.latestResults();
      if (latest?.scan.summary) metrics.setTestCounts(latest.scan.summary);
      if (latest?.scan.finished_at) metrics.setLastSuccessfulScan(latest.scan.finished_at);
    },
  };
}
