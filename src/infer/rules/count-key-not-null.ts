// Prevents: count(col) / uniqExact(col) silently not counting rows whose key is NULL.
import type { MetricIR } from "../../compile/ir.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";
import { valueOf } from "../value-sql.js";

export function countKeyNotNull(ir: MetricIR): InferredTest[] {
  const table = ir.table;
  if (table === null) return [];
  return ir.measures.flatMap((measure) => {
    const value = valueOf(measure);
    if (value === null || (measure.function !== "Count" && measure.function !== "CountDistinct")) return [];
    return [
      makeTest(ir, {
        rule: "count_key_not_null",
        name: `${measure.alias} (${value.label}) counts no NULL keys`,
        check: `${value.label} IS NOT NULL`,
        severity: "MEDIUM",
        confidence: "high",
        table,
        filter: ir.filter,
        columns: value.columns.map((column) => ({ table, column })),
        probe: { type: "rows_where", violation: value.plain ? `${value.sql} IS NULL` : `isNull(${value.sql})` },
      }),
    ];
  });
}
