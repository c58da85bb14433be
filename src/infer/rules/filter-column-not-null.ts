// Prevents: a row whose filter column is NULL silently dropping out of a filtered metric
// (`status = 'completed'` is not true for a NULL status). Run over every row of the table:
// under the filter those rows are exactly the ones that cannot be seen.
import type { MetricIR } from "../../compile/ir.js";
import { quoteIdentifier } from "../../sql/identifiers.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";

export function filterColumnNotNull(ir: MetricIR): InferredTest[] {
  const table = ir.table;
  if (table === null || ir.filter === null) return [];
  return ir.filter_columns.map((column) =>
    makeTest(ir, {
      rule: "filter_column_not_null",
      name: `filter column ${column} is never NULL`,
      check: `${column} IS NOT NULL`,
      severity: "MEDIUM",
      // The columns are lexed from the filter, not parsed.
      confidence: "medium",
      table,
      filter: null,
      columns: [{ table, column }],
      probe: { type: "rows_where", violation: `isNull(${quoteIdentifier(column)})` },
    }),
  );
}
