// Prevents: NULL or empty group keys lumping rows into an unnamed bucket that dashboards hide or mislabel.
import type { MetricIR } from "../../compile/ir.js";
import { quoteIdentifier } from "../../sql/identifiers.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";

export function dimensionNotNull(ir: MetricIR): InferredTest[] {
  const base = ir.table;
  if (base === null) return [];
  return ir.dimensions.map((dimension) => {
    const column = dimension.column;
    const quoted = quoteIdentifier(column);
    // A dimension from a joined table is checked on that table, which the filter does not describe.
    const table = dimension.source_table ?? base;
    const filter = dimension.source_table === null ? ir.filter : null;
    return makeTest(ir, {
      rule: "dimension_not_null",
      name: `dimension ${dimension.name} (${column}) is never NULL or empty`,
      check: `${column} IS NOT NULL AND ${column} != ''`,
      severity: "MEDIUM",
      confidence: "high",
      table,
      filter,
      columns: [{ table, column }],
      // toString makes '' comparable for any type (non-strings are never ''); checked on
      // 18.16 and 26.x that a NULL row counts (isNull is 1, the OR is not NULL).
      probe: { type: "rows_where", violation: `isNull(${quoted}) OR toString(${quoted}) = ''` },
    });
  });
}
