// Prevents: sum/avg/min/max silently skipping NULL values, so the metric undercounts with no error.
import type { MetricIR } from "../../compile/ir.js";
import { quoteIdentifier } from "../../sql/identifiers.js";
import { makeTest, VALUE_FUNCTIONS } from "../make-test.js";
import type { InferredTest } from "../types.js";

export function measureNotNull(ir: MetricIR): InferredTest[] {
  const table = ir.table;
  if (table === null) return [];
  return ir.measures.flatMap((measure) => {
    const column = measure.column;
    if (column === null || !VALUE_FUNCTIONS.has(measure.function)) return [];
    return [
      makeTest(ir, {
        rule: "measure_not_null",
        name: `${measure.alias} (${column}) is never NULL`,
        check: `${column} IS NOT NULL`,
        severity: "HIGH",
        confidence: "high",
        table,
        filter: ir.filter,
        columns: [{ table, column }],
        probe: { type: "rows_where", violation: `${quoteIdentifier(column)} IS NULL` },
      }),
    ];
  });
}
