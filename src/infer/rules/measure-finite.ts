// Prevents: one NaN or Inf value poisoning the whole sum/avg while the query still "succeeds".
import type { MetricIR } from "../../compile/ir.js";
import { makeTest, VALUE_FUNCTIONS } from "../make-test.js";
import type { InferredTest } from "../types.js";
import { valueOf } from "../value-sql.js";

/**
 * Emitted for every value measure: the column's type is unknown here. The planner
 * skips it unless the schema says some column it reads is Float32/Float64 (possibly
 * Nullable), because isNaN/isInfinite fail on other types and only floats hold NaN/Inf.
 */
export function measureFinite(ir: MetricIR): InferredTest[] {
  const table = ir.table;
  if (table === null) return [];
  return ir.measures.flatMap((measure) => {
    const value = valueOf(measure);
    if (value === null || !VALUE_FUNCTIONS.has(measure.function)) return [];
    return [
      makeTest(ir, {
        rule: "measure_finite",
        name: `${measure.alias} (${value.label}) is never NaN or infinite`,
        check: `NOT isNaN(${value.label}) AND NOT isInfinite(${value.label})`,
        severity: "HIGH",
        confidence: "high",
        table,
        filter: ir.filter,
        columns: value.columns.map((column) => ({ table, column })),
        probe: { type: "rows_where", violation: `isNaN(${value.sql}) OR isInfinite(${value.sql})` },
      }),
    ];
  });
}
