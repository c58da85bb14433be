import { createHash } from "node:crypto";
import type { CatalogError, CatalogWarning } from "../catalog/types.js";
import type { MetricIR } from "../compile/ir.js";
import type { InferredTest } from "./types.js";

/**
 * The compiled catalogue the daemon serves: loaded and compiled once at start, never changed after
 * (what the warehouse tells about it is kept apart: catalog-findings.ts).
 */
export interface CatalogSnapshot {
  metrics: MetricIR[];
  /** every inferred test, one per (metric, check); not deduplicated */
  tests: InferredTest[];
  errors: CatalogError[];
  /** files skipped as none of the known forms, dbt tests not run: logged and served, never fatal */
  warnings: CatalogWarning[];
  compiled_at: Date;
  /** hash of the tests: equal on every replica that loaded the same catalogue */
  version: string;
  metricsByName: ReadonlyMap<string, MetricIR>;
  /** each metric's tests, in the order of `tests` */
  testsByMetric: ReadonlyMap<string, readonly InferredTest[]>;
}

/** What the store keeps per test; a change to any of it is a new catalogue version. */
export function catalogVersion(tests: readonly InferredTest[]): string {
  const hash = createHash("sha256");
  // The same bytes as one update per test, handed over a thousand tests at a time (130,000 calls
  // into the hash cost more than the hashing).
  let chunk = "";
  tests.forEach((t, i) => {
    chunk += `${t.metric}\u0000${t.key}\u0000${t.rule}\u0000${t.name}\u0000${t.severity}\u0000${t.confidence}\u0000${t.tolerance}\u0000${t.sample_sql}\n`;
    if (i % 1000 === 999) {
      hash.update(chunk);
      chunk = "";
    }
  });
  hash.update(chunk);
  return hash.digest("hex");
}

export function makeSnapshot(parts: {
  metrics: MetricIR[];
  tests: InferredTest[];
  errors: CatalogError[];
  warnings: CatalogWarning[];
  compiled_at: Date;
}): CatalogSnapshot {
  const metricsByName = new Map(parts.metrics.map((m) => [m.name, m]));
  const testsByMetric = new Map<string, InferredTest[]>();
  for (const test of parts.tests) {
    const list = testsByMetric.get(test.metric);
    if (list) list.push(test);
    else testsByMetric.set(test.metric, [test]);
  }
  return { ...parts, version: catalogVersion(parts.tests), metricsByName, testsByMetric };
}
