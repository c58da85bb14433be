import type { InferredTest } from "../infer/types.js";

/** Column of a planned query's single result row and what it measures. */
export interface QueryOutput {
  /** result column alias, e.g. "c3" */
  alias: string;
  /** test key (InferredTest.key) this column belongs to */
  test_key: string;
  /** "violations" | "max_ts" | ... (interpreted by evaluate) */
  part: string;
}

/** One SELECT over one (datasource, table, filter) group. Always has alias "total" = count(). */
export interface TableQuery {
  id: string;
  datasource: string;
  table: string;
  filter: string | null;
  sql: string;
  outputs: QueryOutput[];
}

export interface ScanPlan {
  /** distinct tests (deduplicated by key), as queried (join keys adapted to their types) */
  tests: InferredTest[];
  queries: TableQuery[];
  /** tests that will not be sent to the warehouse, and why (e.g. a missing column) */
  skipped: { test_key: string; reason: string }[];
  /** test key -> sample query rewritten for the warehouse's column types (join keys); others keep theirs */
  sample_sql: Record<string, string>;
}

/** Columns known to exist, per datasource: "database.table" -> column name -> ClickHouse type. */
export type WarehouseSchema = Record<string, Record<string, Record<string, string>>>;
