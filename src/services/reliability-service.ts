// Reliability reads come from the replica's read model (rebuilt from the store after each scan,
// and when another replica's scan lands), never from the store per request. The catalogue
// snapshot decides which metrics exist.
import { notFound, unavailable } from "../errors/app-error.js";
import type { Metrics } from "../metrics/prometheus.js";
import type { ReadModel, ReadView } from "../read-model/read-model.js";
import type { ScanService } from "../scan/types.js";
import type { Store } from "../store/store.js";
import { findAffectedMetrics, readsTable } from "./affected-by.js";
import { metricResults } from "./metric-results.js";
import { isWholeListing, paginate } from "./paginate.js";
import { rememberJson, wholeListing } from "./serialized.js";
import { buildMetricStatus, buildStatusListing, statusEntry, summarizeEntries } from "./status-listing.js";
import type { ReliabilityService } from "./types.js";
import { scanView, type MetricStatusView, type StatusListingView } from "./views.js";

/** Single-metric answers kept per read-model view. */
const CACHED_ANSWERS = 2_000;

export interface ReliabilityServiceOptions {
  readModel: ReadModel;
  store: Pick<Store, "getScan">;
  scanService: ScanService;
}

export function createReliabilityService(options: ReliabilityServiceOptions): ReliabilityService & {
  refreshMetrics(metrics: Metrics): Promise<void>;
} {
  const { readModel, store, scanService } = options;
  const whole = new WeakMap<ReadView, Promise<StatusListingView>>();
  const byName = new WeakMap<ReadView, Map<string, MetricStatusView>>();
  const wholeListingOf = (view: ReadView) =>
    wholeListing(
      whole,
      view,
      () =>
        buildStatusListing(
          view.catalog.metrics.map((m) => m.name),
          view.statuses,
        ),
      "metrics",
    );

  return {
    async status(query = {}) {
      const view = readModel.view();
      if (isWholeListing(query)) return wholeListingOf(view);
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
      // Circuit breakers ask for the same few metrics over and over: each answer is built and
      // serialised once per view (a bounded number of them).
      let answers = byName.get(view);
      if (!answers) byName.set(view, (answers = new Map<string, MetricStatusView>()));
      const cached = answers.get(name);
      if (cached) return cached;
      const answer = buildMetricStatus(name, view.statuses.get(name) ?? null, metricResults(view, name), view.history.get(name) ?? []);
      if (answers.size >= CACHED_ANSWERS) answers.clear();
      answers.set(name, rememberJson(answer, Buffer.from(JSON.stringify(answer), "utf8")));
      return answer;
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

    /** Sets the Prometheus gauges from the read model's current view. */
    async refreshMetrics(metrics) {
      const view = readModel.view();
      metrics.setStatuses((await wholeListingOf(view)).metrics);
      if (view.scan?.summary) metrics.setTestCounts(view.scan.summary);
      if (view.scan?.finished_at) metrics.setLastSuccessfulScan(view.scan.finished_at);
    },
  };
}
