// Prevents: NULL or empty group keys lumping rows into an unnamed bucket that dashboards hide or mislabel.
import type { MetricIR } from "../../compile/ir.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";
import { reachFilters, valueOf } from "../value-sql.js";

export function dimensionNotNull(ir: MetricIR): InferredTest[] {
  const base = ir.table;
  if (base === null) return [];
  const reach = reachFilters(ir);
  return ir.dimensions.flatMap((dimension) => {
    const value = valueOf(dimension);
    if (value === null) return [];
    const table = dimension.source_table ?? base;
    return [
      makeTest(ir, {
        rule: "dimension_not_null",
        name: `dimension ${dimension.name} (${value.label}) is never NULL or empty`,
        check: `${value.label} IS NOT NULL AND ${value.label} != ''`,
        severity: "MEDIUM",
        confidence: "high",
        table,
        // A joined table is read only where the metric's join reaches it: rows no base row
        // points at never reach the metric, so their NULLs are no finding.
        filter: reach.get(table) ?? null,
        columns: value.columns.map((column) => ({ table, column })),
        // toString makes '' comparable for any type (non-strings are never ''); checked on
        // 18.16 and 26.x that a NULL row counts (isNull is 1, the OR is not NULL).
        probe: { type: "rows_where", violation: `isNull(${value.sql}) OR toString(${value.sql}) = ''` },
      }),
    ];
  });
}
