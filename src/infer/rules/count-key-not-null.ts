// Prevents: count(col) / uniqExact(col) silently not counting rows whose key is NULL.
import type { MetricIR } from "../../compile/ir.js";
import { quoteIdentifier } from "../../sql/identifiers.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";

export function countKeyNotNull(ir: MetricIR): InferredTest[] {
  const table = ir.table;
  if (table === null) return [];
  return ir.measures.flatMap((measure) => {
    const column = measure.column;
    if (column === null || (measure.function !== "Count" && measure.function !== "CountDistinct")) return [];
    return [
      makeTest(ir, {
        rule: "count_key_not_null",
        name: `${measure.alias} (${column}) counts no NULL keys`,
        check: `${column} IS NOT NULL`,
        severity: "MEDIUM",
        confidence: "high",
        table,
        filter: ir.filter,
        columns: [{ table, column }],
        probe: { type: "rows_where", violation: `${quoteIdentifier(column)} IS NULL` },
      }),
    ];
  });
}
