// The catalogue as one sortable, filterable table of statuses (the overview page; REST could page
// it the same way). Rows and sort orders are built once per read-model view, so a request costs
// its page when unfiltered and one pass over the rows when filtered, at 10,000 metrics alike; an
// answer already given for the same view and query is given again (the same object: read-only).
import type { MetricIR } from "../compile/ir.js";
import type { ReliabilityStatus } from "../derive/types.js";
import type { ReadView } from "../read-model/read-model.js";
import { statusEntry, summarizeEntries } from "./status-listing.js";
import type { StatusEntryView, StatusSummary } from "./views.js";

export const METRIC_SORTS = ["status", "name", "since", "failing"] as const;
export type MetricSort = (typeof METRIC_SORTS)[number];
export type SortDirection = "asc" | "desc";

export interface MetricTableQuery {
  status?: ReliabilityStatus | undefined;
  /** case-insensitive part of a metric name or of a table it reads */
  text?: string | undefined;
  sort: MetricSort;
  direction: SortDirection;
  /** 1-based; a page past the last is answered with the last */
  page: number;
  pageSize: number;
}

export interface MetricRowView extends StatusEntryView {
  kind: MetricIR["kind"];
  /** failing and warning tests of the newest scan that judged it (0 before its first) */
  failing_tests: number;
  warning_tests: number;
  /** base table first, then joined tables; empty for a derived metric */
  tables: string[];
  /** a derived metric's inputs */
  inputs: string[];
}

export interface MetricTableView {
  /** when the read-model view it was read from was built: equal answers for equal queries until it changes */
  as_of: string;
  /** every catalogue metric, whatever the filters */
  summary: StatusSummary;
  /** metrics matching the filters */
  matched: number;
  page: number;
  pages: number;
  rows: MetricRowView[];
}

/** Worst first: the order an on-call engineer reads in. */
const STATUS_RANK: Record<ReliabilityStatus, number> = { unreliable: 0, unknown: 1, degraded: 2, healthy: 3 };

interface TableIndex {
  rows: MetricRowView[];
  /** lower-cased "name table1 table2 ..." per row, for the text filter */
  haystacks: string[];
  /** each row's status, apart: a scan over plain strings, not over the row objects */
  statuses: ReliabilityStatus[];
  summary: StatusSummary;
  orders: Map<string, Int32Array>;
  /** answers already given for this view, by query: a person paging or refreshing costs a lookup */
  answers: Map<string, MetricTableView>;
}

/** Answers kept per view; past it they are dropped all at once (a view lives until the next scan). */
const ANSWERS_KEPT = 256;

export function metricRow(ir: MetricIR, view: ReadView): MetricRowView {
  const stored = view.statuses.get(ir.name);
  const tables = [ir.table, ...ir.joins.map((j) => j.table)].filter((t): t is string => t !== null);
  return {
    ...statusEntry(ir.name, stored),
    kind: ir.kind,
    failing_tests: stored?.tests.failing ?? 0,
    warning_tests: stored?.tests.warning ?? 0,
    tables: [...new Set(tables)],
    inputs: ir.inputs,
  };
}

const byName = (a: MetricRowView, b: MetricRowView) => (a.metric_name < b.metric_name ? -1 : a.metric_name > b.metric_name ? 1 : 0);

/** Ascending comparators; ties always fall back to the name, ascending in both directions. */
const PRIMARY: Record<MetricSort, (a: MetricRowView, b: MetricRowView) => number> = {
  name: () => 0,
  status: (a, b) => STATUS_RANK[a.status] - STATUS_RANK[b.status],
  // ISO strings of one format compare as their instants; never-scanned metrics sort last.
  since: (a, b) => (a.since === b.since ? 0 : a.since === null ? 1 : b.since === null ? -1 : a.since < b.since ? -1 : 1),
  failing: (a, b) => a.failing_tests - b.failing_tests || a.warning_tests - b.warning_tests,
};

function sortOrder(index: TableIndex, sort: MetricSort, direction: SortDirection): Int32Array {
  const key = `${sort}:${direction}`;
  let order = index.orders.get(key);
  if (!order) {
    const rows = index.rows;
    const sign = direction === "asc" ? 1 : -1;
    const primary = PRIMARY[sort];
    const positions = Array.from(rows.keys());
    positions.sort((i, j) => {
      const a = rows[i]!;
      const b = rows[j]!;
      return sign * (sort === "name" ? byName(a, b) : primary(a, b)) || byName(a, b);
    });
    order = Int32Array.from(positions);
    index.orders.set(key, order);
  }
  return order;
}

function buildIndex(view: ReadView): TableIndex {
  const rows = view.catalog.metrics.map((ir) => metricRow(ir, view));
  return {
    rows,
    haystacks: rows.map((r) => [r.metric_name, ...r.tables].join(" ").toLowerCase()),
    statuses: rows.map((r) => r.status),
    summary: summarizeEntries(rows),
    orders: new Map(),
    answers: new Map(),
  };
}

/** One index per view: a new scan (a new view) rebuilds it, requests in between share it. */
export function createMetricTable(): (view: ReadView, query: MetricTableQuery) => MetricTableView {
  const indexes = new WeakMap<ReadView, TableIndex>();
  return (view, query) => {
    let index = indexes.get(view);
    if (!index) indexes.set(view, (index = buildIndex(view)));
    const size = Math.max(1, query.pageSize);
    const text = query.text?.trim().toLowerCase() ?? "";
    const key = `${query.status ?? ""}|${query.sort}|${query.direction}|${query.page}|${size}|${text}`;
    const kept = index.answers.get(key);
    if (kept) return kept;
    const order = sortOrder(index, query.sort, query.direction);
    const { rows, haystacks, statuses } = index;
    const filtered = query.status !== undefined || text !== "";
    let matched = rows.length;
    let positions: ArrayLike<number> = order;
    if (filtered) {
      const status = query.status;
      const hits: number[] = [];
      for (let i = 0; i < order.length; i++) {
        const position = order[i]!;
        if (status !== undefined && statuses[position] !== status) continue;
        if (text !== "" && !haystacks[position]!.includes(text)) continue;
        hits.push(position);
      }
      matched = hits.length;
      positions = hits;
    }
    const pages = Math.max(1, Math.ceil(matched / size));
    const page = Math.min(Math.max(1, Math.floor(query.page)), pages);
    const pageRows: MetricRowView[] = [];
    for (let i = (page - 1) * size; i < Math.min(matched, page * size); i++) pageRows.push(rows[positions[i]!]!);
    const answer: MetricTableView = { as_of: view.built_at.toISOString(), summary: index.summary, matched, page, pages, rows: pageRows };
    if (index.answers.size >= ANSWERS_KEPT) index.answers.clear();
    index.answers.set(key, answer);
    return answer;
  };
}
