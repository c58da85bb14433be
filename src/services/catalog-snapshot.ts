import type { CatalogError, CatalogWarning } from "../catalog/types.js";
import type { MetricIR } from "../compile/ir.js";
import type { InferredTest } from "../infer/types.js";

/** The compiled catalogue the daemon serves: loaded and compiled once at start. */
export interface CatalogSnapshot {
  metrics: MetricIR[];
  /** every inferred test, one per (metric, check); not deduplicated */
  tests: InferredTest[];
  errors: CatalogError[];
  /** files skipped as none of the known forms, dbt tests not run: logged and served, never fatal */
  warnings: CatalogWarning[];
  compiled_at: Date;
  /**
   * Found where the warehouse is reachable (at load, at the latest by the first scan): metric ->
   * why ClickHouse cannot parse its filter or an expression. Such a metric stays `unknown`.
   */
  sql_errors?: Map<string, CatalogError>;
  /** datasource|fragment -> ClickHouse's syntax error, or null when it parses (asked once) */
  sql_checked?: Map<string, string | null>;
}
