// Prevents: a row whose filter column is NULL silently dropping out of a filtered metric
// (`status = 'completed'` is not true for a NULL status). Run over every row of the table:
// under the filter those rows are exactly the ones that cannot be seen.
import type { MetricIR } from "../../compile/ir.js";
import { quoteIdentifier } from "../../sql/identifiers.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";

/** The filter itself says what NULL means there (`x IS NOT NULL`, `ifNull(x, 0) > 1`): no finding. */
export function handlesNull(filter: string, column: string): boolean {
  const name = `\`?${column}\`?`;
  return (
    new RegExp(`(^|[^A-Za-z0-9_])${name}\\s+IS\\s+(NOT\\s+)?NULL\\b`, "i").test(filter) ||
    new RegExp(`\\b(isNull|isNotNull|ifNull|coalesce|assumeNotNull|nullIf)\\s*\\(\\s*${name}\\b`, "i").test(filter)
  );
}

export function filterColumnNotNull(ir: MetricIR): InferredTest[] {
  const table = ir.table;
  const filter = ir.filter;
  if (table === null || filter === null) return [];
  return ir.filter_columns
    .filter((column) => !handlesNull(filter, column))
    .map((column) =>
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
