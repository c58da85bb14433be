// Prevents: rows with a NULL foreign key silently vanishing from every breakdown by the joined
// table (an inner join drops them) or landing in an unnamed bucket (a left join). The
// integrity check skips NULLs, as dbt's relationships test does, so this is its own rule.
import type { MetricIR } from "../../compile/ir.js";
import { valueSql } from "../../sql/value-expr.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";
import { columnRefs, reachFilters } from "../value-sql.js";

export function foreignKeyNotNull(ir: MetricIR): InferredTest[] {
  if (ir.table === null) return [];
  const reach = reachFilters(ir);
  return ir.joins.map((join) => {
    const table = join.from_table;
    return makeTest(ir, {
      rule: "foreign_key_not_null",
      name: `foreign key ${join.left_column} to ${join.table} is never NULL`,
      check: `${join.left_column} IS NOT NULL`,
      // An inner join drops the row from the metric itself; a left join keeps it under a NULL key.
      severity: join.type === "inner" ? "HIGH" : "MEDIUM",
      confidence: "high",
      table,
      filter: reach.get(table) ?? null,
      columns: columnRefs(table, join.left_column),
      probe: { type: "rows_where", violation: `${valueSql(join.left_column)} IS NULL` },
    });
  });
}
