// Prevents: sum/avg/min/max/median/percentile silently skipping NULL values, so the metric undercounts with no error.
import type { MetricIR } from "../../compile/ir.js";
import { makeTest, NULL_DROPPING_FUNCTIONS } from "../make-test.js";
import type { InferredTest } from "../types.js";
import { valueOf } from "../value-sql.js";

export function measureNotNull(ir: MetricIR): InferredTest[] {
  const table = ir.table;
  if (table === null) return [];
  return ir.measures.flatMap((measure) => {
    const value = valueOf(measure);
    if (value === null || !NULL_DROPPING_FUNCTIONS.has(measure.function)) return [];
    return [
      makeTest(ir, {
        rule: "measure_not_null",
        name: `${measure.alias} (${value.label}) is never NULL`,
        check: `${value.label} IS NOT NULL`,
        severity: "HIGH",
        confidence: "high",
        table,
        filter: ir.filter,
        columns: value.columns.map((column) => ({ table, column })),
        probe: { type: "rows_where", violation: value.plain ? `${value.sql} IS NULL` : `isNull(${value.sql})` },
      }),
    ];
  });
}
