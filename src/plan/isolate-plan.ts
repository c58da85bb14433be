// Bisection of a table query ClickHouse refused (DESIGN.md "Execution on ClickHouse"), as pure
// planning steps: the order a refused query's tests are halved in, the query of a subset, the
// probes that tell an unreadable table or a throwing filter from a throwing check, the count of
// the rows that make a check throw, and the plan once the refused query is replaced by what
// answered. scan/isolate-failures.ts sends these queries and walks the halves.
import type { InferredTest } from "../infer/types.js";
import { quoteTable } from "../sql/identifiers.js";
import type { FailureCause } from "./failure-cause.js";
import { queriesFor, type PlanOptions } from "./plan-scan.js";
import { probeExpressions } from "./probe-sql.js";
import type { FailedCheck, ScanPlan, TableQuery, WarehouseSchema } from "./types.js";

/**
 * The refused query's tests as planned, grouped by filter in the query's filter order (stable
 * within a filter): a throwing filter's tests stay together, so halving reaches them as one block.
 */
export function refusedTests(plan: ScanPlan, query: TableQuery): InferredTest[] {
  const keys = new Set(query.outputs.map((output) => output.test_key));
  const rank = new Map(query.filters.map((filter, index) => [filter, index]));
  const at = (test: InferredTest) => rank.get(test.filter) ?? query.filters.length;
  return plan.tests.filter((test) => keys.has(test.key)).sort((a, b) => at(a) - at(b));
}

/** The first ceil(n/2) items and the rest. */
export function halves<T>(items: readonly T[]): [T[], T[]] {
  const middle = Math.ceil(items.length / 2);
  return [items.slice(0, middle), items.slice(middle)];
}

/** What a probe of a filter's rows found: `null` is the table's rows (no filter). */
export type FilterState = "readable" | "throws";

export type IsolationStep =
  /** these tests share a filter never read alone: probe it before blaming a check */
  | { kind: "probe_filter"; filter: string | null }
  /** one check left, and its query was refused: it throws */
  | { kind: "isolated"; test: InferredTest }
  /** query each half (queriesFor) and go on with each half refused */
  | { kind: "split"; halves: [InferredTest[], InferredTest[]] }
  /** the refused query also held tests under a throwing filter: the others must be queried without them */
  | { kind: "retry"; tests: InferredTest[] };

/**
 * The next step for tests whose query was refused. Tests under a filter known to throw are set
 * aside first (they fail with their filter, no query needed). Every refused set costs at most
 * two queries, one per half, so one throwing check among n costs 2 * ceil(log2 n) queries, plus
 * one probe per filter involved.
 */
export function isolationStep(
  tests: readonly InferredTest[],
  filters: ReadonlyMap<string | null, FilterState>,
): { underFailedFilter: InferredTest[]; step: IsolationStep | null } {
  const underFailedFilter = tests.filter((test) => filters.get(test.filter) === "throws");
  const live = tests.filter((test) => filters.get(test.filter) !== "throws");
  if (live.length === 0) return { underFailedFilter, step: null };
  // The throwing filter may be all that failed the query: nothing is known yet about the rest.
  if (underFailedFilter.length > 0) return { underFailedFilter, step: { kind: "retry", tests: live } };
  const filter = live[0]!.filter;
  if (live.every((test) => test.filter === filter) && !filters.has(filter))
    return { underFailedFilter, step: { kind: "probe_filter", filter } };
  if (live.length === 1) return { underFailedFilter, step: { kind: "isolated", test: live[0]! } };
  return { underFailedFilter, step: { kind: "split", halves: halves(live) } };
}

/** The queries of a subset of a refused query's tests: one, unless it would pass max_query_size. */
export function subsetQueries(tests: InferredTest[], schema: WarehouseSchema, options: PlanOptions, id: () => string): TableQuery[] {
  return queriesFor(tests, schema, options, () => id());
}

const from = (query: TableQuery, filter: string | null) => ` FROM ${quoteTable(query.table)}${filter === null ? "" : ` WHERE (${filter})`}`;

/** `SELECT count() AS total FROM t [WHERE (filter)]`: whether these rows can be read at all, and how many there are. */
export function rowsProbe(query: TableQuery, filter: string | null, id: string): TableQuery {
  return {
    id,
    datasource: query.datasource,
    table: query.table,
    filters: [filter],
    sql: `SELECT count() AS total${from(query, filter)}`,
    outputs: [],
  };
}

/** The count of the rows that make an isolated check (or filter) throw, column `c1`, over `filter`'s rows. */
export function causeQuery(query: TableQuery, filter: string | null, cause: FailureCause, id: string): TableQuery {
  return {
    id,
    datasource: query.datasource,
    table: query.table,
    filters: [filter],
    sql: `SELECT count() AS total, ${cause.count} AS c1${from(query, filter)}`,
    outputs: [],
  };
}

/** The SQL that throws: the test's filter, or the expressions its probe computes. */
export function failingSql(test: InferredTest, part: FailedCheck["part"]): string {
  if (part === "filter") return test.filter ?? "";
  return probeExpressions(test, null, true)
    .flatMap((probe) => (probe.expression === null ? [] : [probe.expression]))
    .join(", ");
}

/** The plan with a refused query replaced by the sub-queries that answered for its tests, and the checks isolated as failed. */
export function withIsolation(plan: ScanPlan, queryId: string, answered: readonly TableQuery[], failed: readonly FailedCheck[]): ScanPlan {
  const index = plan.queries.findIndex((query) => query.id === queryId);
  if (index === -1) return plan;
  return {
    ...plan,
    queries: [...plan.queries.slice(0, index), ...answered, ...plan.queries.slice(index + 1)],
    failed: [...plan.failed, ...failed],
  };
}
