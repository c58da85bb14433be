// Prevents: duplicate keys in a many_to_one joined table fanning out base rows, so sums double-count.
import type { MetricIR } from "../../compile/ir.js";
import { valueSql } from "../../sql/value-expr.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";
import { columnRefs, reachFilters } from "../value-sql.js";

export function joinKeyUnique(ir: MetricIR): InferredTest[] {
  if (ir.table === null) return [];
  const reach = reachFilters(ir);
  return ir.joins.map((join) =>
    makeTest(ir, {
      rule: "join_key_unique",
      name: `join key ${join.table}.${join.right_column} is unique`,
      check: `${join.right_column} is unique in ${join.table}`,
      severity: "HIGH",
      confidence: "high",
      // Only keys the metric's rows point at can fan them out.
      table: join.table,
      filter: reach.get(join.table) ?? null,
      columns: columnRefs(join.table, join.right_column),
      probe: { type: "duplicate_keys", key: valueSql(join.right_column) },
    }),
  );
}
