import type { InferredTest } from "../infer/types.js";

/** Column of a planned query's single result row and what it measures. */
export interface QueryOutput {
  /** result column alias, e.g. "c3" */
  alias: string;
  /** test key (InferredTest.key) this column belongs to */
  test_key: string;
  /** "total" | "violations" | "max_ts" | "now" (interpreted by evaluate) */
  part: string;
}

/**
 * One SELECT over one (datasource, table): its tests' filters are folded into the aggregates
 * (or, when it has a single filter, applied by its WHERE). Always has alias "total" = count();
 * each test's "total" output is its filter's row count.
 */
export interface TableQuery {
  id: string;
  datasource: string;
  table: string;
  /** distinct filters of its tests (null = no filter) */
  filters: (string | null)[];
  sql: string;
  outputs: QueryOutput[];
}

/**
 * Why a test is not sent to the warehouse: it cannot run (a missing column: a warning) or does
 * not apply (a NaN check on an integer column: passing). `reason` is for people, without the
 * outcome's wording ("column missing: shop.orders.x").
 */
export interface Skip {
  outcome: "not_evaluated" | "not_applicable";
  reason: string;
}

/** A check whose SQL (or filter) throws on today's data, isolated from the rest of its table's query. */
export interface FailedCheck {
  test_key: string;
  /** what throws: the check's own expression, or the filter it runs under */
  part: "check" | "filter";
  /** ClickHouse's error, e.g. "ClickHouse error 349: Cannot convert NULL value to non-Nullable type" */
  error: string;
  /** rows the check reads: its filter's rows (the table's when the filter is what throws) */
  rows_total: number;
  /** rows that make it throw, when they could be counted safely (failure-cause.ts); else null */
  rows_affected: number | null;
  /** what those rows have, e.g. "NULL ordered_at" */
  cause: string | null;
}

export interface ScanPlan {
  /** distinct tests (deduplicated by key), as queried (join keys adapted to their types) */
  tests: InferredTest[];
  queries: TableQuery[];
  /** tests that will not be sent to the warehouse, and why (e.g. a missing column) */
  skipped: ({ test_key: string } & Skip)[];
  /** checks isolated from a refused query because their own SQL throws on the data (filled in by the scan) */
  failed: FailedCheck[];
  /** test key -> sample query rewritten for the warehouse's column types (join keys); others keep theirs */
  sample_sql: Record<string, string>;
}

/** Columns known to exist, per datasource: "database.table" -> column name -> ClickHouse type. */
export type WarehouseSchema = Record<string, Record<string, Record<string, string>>>;
