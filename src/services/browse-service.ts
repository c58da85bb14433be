// Reads for people browsing the catalogue (the status pages): the metric table, one metric with
// every test result, the metrics a table feeds, and the health of the scans themselves. Built
// from the same read model and helpers as REST's answers; nothing here judges a test or derives
// a status anew.
import type { MetricIR } from "../compile/ir.js";
import type { TestCounts } from "../derive/types.js";
import { notFound } from "../errors/app-error.js";
import type { ReadModel, ReadView } from "../read-model/read-model.js";
import type { ScanRecord, Store } from "../store/store.js";
import { findAffectedMetrics } from "./affected-by.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import { metricResults } from "./metric-results.js";
import { createMetricTable, metricRow, type MetricRowView, type MetricTableQuery, type MetricTableView } from "./metric-table.js";
import { summarizeEntries } from "./status-listing.js";
import {
  periodView,
  scanView,
  testResultView,
  type AffectedRelationship,
  type ScanView,
  type StatusPeriodView,
  type StatusSummary,
  type TestResultView,
} from "./views.js";

export interface MetricDetailView {
  ir: MetricIR;
  row: MetricRowView;
  scan_id: string | null;
  tests: TestCounts;
  /** every test with a result: failing first, then warnings, then passing; catalogue order within */
  results: TestResultView[];
  /** status periods, newest first (as many as the read model keeps) */
  history: StatusPeriodView[];
  /** a derived metric's inputs, with their statuses */
  inputs: MetricRowView[];
  /** metrics built directly on this one */
  derived: MetricRowView[];
}

export interface TableDetailView {
  table: string;
  affected: (MetricRowView & { relationship: AffectedRelationship })[];
  count: number;
  summary: StatusSummary;
}

export interface ScanHealthView {
  /** the newest succeeded scan the statuses come from (this replica's read model) */
  statuses_from: { scan_id: string; finished_at: string | null } | null;
  /** the newest scan that finished, whatever its outcome */
  last_finished: ScanView | null;
  running: ScanView | null;
  /** finished scans since the newest success that did not succeed (among the recent ones read) */
  failures_since_success: number;
  /** set when the store did not answer: what is shown is the read model's last view */
  store_error: string | null;
}

export interface BrowseService {
  metricTable(query: MetricTableQuery): Promise<MetricTableView>;
  /** throws AppError not_found for a metric outside the catalogue */
  metricDetail(name: string): Promise<MetricDetailView>;
  /** an empty list for a table no metric reads, as affected-by answers */
  tableDetail(table: string): Promise<TableDetailView>;
  scanHealth(): Promise<ScanHealthView>;
  /**
   * Changes whenever what the pages draw from may have: a new read-model view (a scan, a reload,
   * a catalogue) or a held anomaly verdict (feedback). Pages are kept per revision.
   */
  revision(): string;
}

export interface BrowseServiceOptions {
  readModel: ReadModel;
  store: Pick<Store, "recentScans">;
  /** how long one read of the recent scans serves every page (default 5 s) */
  scanHealthTtlMs?: number;
  /** scans read to count failures since the newest success (default 20) */
  recentScans?: number;
}

const PROBLEM_ORDER = { failing: 0, warning: 1, passing: 2 } as const;

/** Metrics built directly on each metric, once per catalogue (a page must not scan 10,000 metrics). */
const dependents = new WeakMap<CatalogSnapshot, Map<string, MetricIR[]>>();
function dependentsOf(catalog: CatalogSnapshot): Map<string, MetricIR[]> {
  let map = dependents.get(catalog);
  if (!map) {
    map = new Map();
    for (const metric of catalog.metrics) {
      for (const input of new Set(metric.inputs)) map.set(input, [...(map.get(input) ?? []), metric]);
    }
    dependents.set(catalog, map);
  }
  return map;
}

export function createBrowseService(options: BrowseServiceOptions): BrowseService {
  const { readModel, store } = options;
  const ttl = options.scanHealthTtlMs ?? 5_000;
  const limit = options.recentScans ?? 20;
  const table = createMetricTable();
  let recent: { at: number; scans: Promise<ScanRecord[]> } | null = null;
  /** the last answer, given again while neither the scans read nor the view changed (every page asks) */
  let health: { scans: Promise<ScanRecord[]>; view: ReadView; answer: ScanHealthView } | null = null;

  // One store read per TTL, shared by every page in it; a failed read is not kept.
  const recentScans = (): Promise<ScanRecord[]> => {
    const now = Date.now();
    if (!recent || now - recent.at >= ttl) {
      const scans = store.recentScans(limit);
      const entry = { at: now, scans };
      recent = entry;
      scans.catch(() => {
        if (recent === entry) recent = null;
      });
    }
    return recent.scans;
  };

  /** Views are told apart by identity; a number per view keeps the revision a short string. */
  const viewNumbers = new WeakMap<ReadView, number>();
  let views = 0;

  return {
    revision() {
      const view = readModel.view();
      let n = viewNumbers.get(view);
      if (n === undefined) viewNumbers.set(view, (n = ++views));
      return `${n}.${readModel.verdicts.revision()}`;
    },

    async metricTable(query) {
      return table(readModel.view(), query);
    },

    async metricDetail(name) {
      const view = readModel.view();
      const ir = view.catalog.metricsByName.get(name);
      if (!ir) throw notFound(`metric "${name}" not found`);
      const stored = view.statuses.get(name);
      const results = metricResults(view, name)
        .map(testResultView)
        .map((result, position) => ({ result, position }))
        .sort((a, b) => PROBLEM_ORDER[a.result.status] - PROBLEM_ORDER[b.result.status] || a.position - b.position)
        .map(({ result }) => result);
      const rowOf = (metric: MetricIR) => metricRow(metric, view);
      return {
        ir,
        row: rowOf(ir),
        scan_id: stored?.scan_id ?? null,
        tests: stored ? { ...stored.tests } : { total: 0, passing: 0, failing: 0, warning: 0 },
        results,
        history: (view.history.get(name) ?? []).map(periodView),
        inputs: ir.inputs.flatMap((input) => {
          const metric = view.catalog.metricsByName.get(input);
          return metric ? [rowOf(metric)] : [];
        }),
        derived: (dependentsOf(view.catalog).get(name) ?? []).map(rowOf),
      };
    },

    async tableDetail(tableName) {
      const view = readModel.view();
      const found = findAffectedMetrics(view.catalog.metrics, tableName);
      const affected = found.affected_metrics.flatMap(({ metric_name, relationship }) => {
        const metric = view.catalog.metricsByName.get(metric_name);
        return metric ? [{ ...metricRow(metric, view), relationship }] : [];
      });
      return { table: found.table, affected, count: found.count, summary: summarizeEntries(affected) };
    },

    async scanHealth() {
      const view = readModel.view();
      const statuses_from = view.scan ? { scan_id: view.scan.scan_id, finished_at: view.scan.finished_at?.toISOString() ?? null } : null;
      const read = recentScans();
      if (health?.scans === read && health.view === view) return health.answer;
      let scans: ScanRecord[];
      try {
        scans = await read;
      } catch (error) {
        return { statuses_from, last_finished: null, running: null, failures_since_success: 0, store_error: (error as Error).message };
      }
      const running = scans.find((s) => s.status === "running") ?? null;
      const finished = scans.filter((s) => s.status !== "running");
      const lastSuccess = finished.findIndex((s) => s.status === "succeeded");
      const answer: ScanHealthView = {
        statuses_from,
        last_finished: finished[0] ? scanView(finished[0]) : null,
        running: running ? scanView(running) : null,
        failures_since_success: lastSuccess === -1 ? finished.length : lastSuccess,
        store_error: null,
      };
      health = { scans: read, view, answer };
      return answer;
    },
  };
}
