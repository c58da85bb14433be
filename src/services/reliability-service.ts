// Reliability reads come from the replica's read model (rebuilt from the store after each scan,
// and when another replica's scan lands), never from the store per request. The catalogue
// snapshot decides which metrics exist.
import { notFound, unavailable } from "../errors/app-error.js";
import { incidentSamples, metricTables } from "../incidents/alert-labels.js";
import type { Metrics } from "../metrics/prometheus.js";
import type { ReadModel, ReadView } from "../read-model/read-model.js";
import type { Store } from "../store/store.js";
import { findAffectedMetrics, readsTable } from "./affected-by.js";
import { getIncident, listIncidents } from "./incidents.js";
import { metricResults } from "./metric-results.js";
import { isWholeListing, paginate } from "./paginate.js";
import { buildMetricStatus, buildStatusListing, statusEntry, summarizeEntries } from "./status-listing.js";
import type { ReliabilityService, ScanRunner } from "./types.js";
import { scanView, type StatusListingView } from "./views.js";

export interface ReliabilityServiceOptions {
  readModel: ReadModel;
  store: Pick<Store, "getScan">;
  scanService: ScanRunner;
}

const wholeListing = (view: ReadView): StatusListingView =>
  buildStatusListing(
    view.catalog.metrics.map((m) => m.name),
    view.statuses,
  );

/**
 * Answers are built per call; cached-services.ts keeps (and serialises once) those that are the
 * same for every caller of one view. Each method reads the view synchronously when called, so a
 * cache keyed by readModel.view() at the call holds what was built from that view.
 */
export function createReliabilityService(options: ReliabilityServiceOptions): ReliabilityService & {
  /** `listing`: the current view's status listing (the daemon passes its cached one); built here when not given. */
  refreshMetrics(metrics: Metrics, listing?: () => Promise<StatusListingView>): Promise<void>;
} {
  const { readModel, store, scanService } = options;
  /** What the status gauges were last set from: an unchanged scan keeps the view's statuses as they were. */
  let gauges: { metrics: Metrics; statuses: ReadView["statuses"]; catalog: ReadView["catalog"]; tables: Map<string, string> } | null = null;

  return {
    async status(query = {}) {
      const view = readModel.view();
      if (isWholeListing(query)) return wholeListing(view);
      const { metric, status, table } = query;
      const entries = view.catalog.metrics.map((ir) => ({ ir, entry: statusEntry(ir.name, view.statuses.get(ir.name)) }));
      const match = ({ ir, entry }: (typeof entries)[number]) =>
        (metric === undefined || ir.name === metric) &&
        (status === undefined || entry.status === status) &&
        (table === undefined || readsTable(ir, table));
      const page = paginate(entries, match, query, view.catalog.version);
      // The summary counts every matching metric, not only this page's.
      return {
        summary: summarizeEntries(entries.filter(match).map((m) => m.entry)),
        metrics: page.items.map((m) => m.entry),
        next_cursor: page.next_cursor,
      };
    },

    async metricStatus(name) {
      const view = readModel.view();
      if (!view.catalog.metricsByName.has(name)) throw notFound(`metric "${name}" not found`);
      return buildMetricStatus(name, view.statuses.get(name) ?? null, metricResults(view, name), view.history.get(name) ?? []);
    },

    async affectedBy(table) {
      return findAffectedMetrics(readModel.view().catalog.metrics, table);
    },

    async triggerScan({ wait }) {
      const { scan, coalesced } = await scanService.trigger("manual");
      const finished = wait ? await scanService.wait(scan.scan_id) : scan;
      return { ...scanView(finished), coalesced };
    },

    async getScan(id) {
      let scan;
      try {
        scan = await store.getScan(id);
      } catch (error) {
        throw unavailable("the status store is unavailable", error);
      }
      if (!scan) throw notFound(`scan "${id}" not found`);
      return scanView(scan);
    },

    async incidents(query = {}) {
      return listIncidents(readModel.view(), query);
    },

    async incident(id) {
      return getIncident(readModel.view(), id);
    },

    /** Sets the Prometheus gauges from the read model's current view. */
    async refreshMetrics(metrics, listing) {
      const view = readModel.view();
      // Metrics the open incidents explain carry their table (one TableIncident alert inhibits theirs).
      const tables = metricTables(view.incidents);
      // 50,000 series at 10,000 metrics, rebuilt only when a status or a table label changed (an
      // unchanged scan spent some 50 ms a scan rebuilding the same text).
      const same =
        gauges !== null &&
        gauges.metrics === metrics &&
        gauges.catalog === view.catalog &&
        // The gauges' values: status and safe_to_use (checked_at moves on every scan).
        sameMap(gauges.statuses, view.statuses, (x, y) => x.status === y.status && x.safe_to_use === y.safe_to_use) &&
        sameMap(gauges.tables, tables, (x, y) => x === y);
      if (!same) {
        const entries = (listing ? await listing() : wholeListing(view)).metrics;
        metrics.setStatuses(tables.size === 0 ? entries : entries.map((e) => ({ ...e, table: tables.get(e.metric_name) })));
        gauges = { metrics, statuses: view.statuses, catalog: view.catalog, tables };
      }
      metrics.setIncidents(incidentSamples(view.incidents));
      if (view.scan?.summary) metrics.setTestCounts(view.scan.summary);
      if (view.scan?.finished_at) metrics.setLastSuccessfulScan(view.scan.finished_at);
    },
  };
}

/** The same keys, and for each the same value by `same`. */
function sameMap<V>(a: ReadonlyMap<string, V>, b: ReadonlyMap<string, V>, same: (x: V, y: V) => boolean): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const [key, value] of a) {
    const other = b.get(key);
    if (other === undefined || !same(value, other)) return false;
  }
  return true;
}
