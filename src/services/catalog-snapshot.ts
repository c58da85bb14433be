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
}
