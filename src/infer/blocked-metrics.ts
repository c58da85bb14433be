// Which metrics cannot run because the warehouse cannot parse their SQL (or an input's): the
// scan sends none of their queries, and the reads say why. Pure, over the catalogue's SQL errors
// (scan/check-sql.ts finds them).
import type { CatalogError } from "../catalog/types.js";
import type { CatalogSnapshot } from "./catalog-snapshot.js";

/**
 * Metric name -> reason (judged "not evaluated: <reason>"), for every metric that cannot run: its own SQL does not parse, or
 * (derived metrics) an input's does, transitively.
 */
export function blockedMetrics(snapshot: CatalogSnapshot, errors: ReadonlyMap<string, CatalogError>): Map<string, string> {
  const blocked = new Map<string, string>();
  // The reason without the file (the message's first part): the test result says "not evaluated: <reason>".
  for (const [metric, error] of errors) blocked.set(metric, error.message.slice(error.message.indexOf(": ") + 2));
  if (blocked.size === 0) return blocked;
  // Fixed point over derived inputs, bounded by the number of metrics.
  let changed = true;
  while (changed) {
    changed = false;
    for (const ir of snapshot.metrics) {
      if (blocked.has(ir.name)) continue;
      const input = ir.inputs.find((name) => blocked.has(name));
      if (input === undefined) continue;
      blocked.set(ir.name, `input metric ${input} cannot run (${blocked.get(input)!})`);
      changed = true;
    }
  }
  return blocked;
}
