// Which catalogue metrics read a given source table, and how. Pure: IR in, list out.
import type { MetricIR } from "../compile/ir.js";
import type { AffectedByView, AffectedRelationship } from "./views.js";

/**
 * Table names are matched exactly ("shop.orders"). A bare name ("orders") matches that table
 * in any database, for callers that do not know the database; the echo keeps what was asked.
 */
export function tableMatches(qualified: string | null | undefined, requested: string): boolean {
  if (!qualified) return false;
  if (requested.includes(".")) return qualified === requested;
  return qualified.slice(qualified.indexOf(".") + 1) === requested;
}

/** The metric reads `table`: as its base table or through a join. */
export const readsTable = (ir: MetricIR, table: string): boolean =>
  tableMatches(ir.table, table) || ir.joins.some((j) => tableMatches(j.table, table));

/** The most direct relationship wins: base_table, then join, then dimension. */
function directRelationship(ir: MetricIR, table: string): AffectedRelationship | null {
  if (tableMatches(ir.table, table)) return "base_table";
  if (ir.joins.some((j) => tableMatches(j.table, table))) return "join";
  if (ir.dimensions.some((d) => tableMatches(d.source_table, table))) return "dimension";
  return null;
}

export function findAffectedMetrics(metrics: readonly MetricIR[], table: string): AffectedByView {
  const affected = new Map<string, AffectedRelationship>();
  for (const ir of metrics) {
    const relationship = directRelationship(ir, table);
    if (relationship) affected.set(ir.name, relationship);
  }
  // Derived metrics inherit from their inputs, transitively: iterate to a fixed point
  // (bounded by the number of metrics, so an input cycle cannot loop forever).
  let changed = true;
  while (changed) {
    changed = false;
    for (const ir of metrics) {
      if (affected.has(ir.name) || ir.inputs.length === 0) continue;
      if (ir.inputs.some((input) => affected.has(input))) {
        affected.set(ir.name, "derived");
        changed = true;
      }
    }
  }
  // Catalogue order, so the answer is stable across calls.
  const affected_metrics = metrics
    .filter((m) => affected.has(m.name))
    .map((m) => ({ metric_name: m.name, relationship: affected.get(m.name)! }));
  return { table, affected_metrics, count: affected_metrics.length };
}
