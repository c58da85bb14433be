// Prevents: an unexpected value in a low-cardinality dimension (customer_type = 'unknown' when
// a filter expects new/returning) silently dropping rows out of every segment. Checked over
// every row the metric's table holds (unfiltered): a filter on the dimension hides exactly
// these rows.
import type { MetricIR } from "../../compile/ir.js";
import { quoteString } from "../../sql/identifiers.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";
import { reachFilters, valueOf } from "../value-sql.js";

/** NULLs are not judged (dimension_not_null does), as dbt's accepted_values does not. */
export function notAcceptedViolation(sql: string, values: readonly string[]): string {
  return `isNotNull(${sql}) AND toString(${sql}) NOT IN (${values.map(quoteString).join(", ")})`;
}

export function dimensionAcceptedValues(ir: MetricIR): InferredTest[] {
  const base = ir.table;
  if (base === null) return [];
  const reach = reachFilters(ir, null);
  return ir.dimensions.flatMap((dimension) => {
    const value = valueOf(dimension);
    const values = dimension.accepted_values;
    if (value === null || values === undefined) return [];
    const table = dimension.source_table ?? base;
    return [
      makeTest(ir, {
        rule: "dimension_accepted_values",
        name: `dimension ${dimension.name} (${value.label}) takes only its accepted values`,
        check: `${value.label} IN (${values.map(quoteString).join(", ")})`,
        severity: "MEDIUM",
        confidence: "high",
        table,
        filter: reach.get(table) ?? null,
        columns: value.columns.map((column) => ({ table, column })),
        probe: { type: "rows_where", violation: notAcceptedViolation(value.sql, values) },
      }),
    ];
  });
}
