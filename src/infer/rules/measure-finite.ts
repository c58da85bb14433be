// Prevents: one NaN or Inf value poisoning the whole sum/avg while the query still "succeeds".
import type { MetricIR } from "../../compile/ir.js";
import { quoteIdentifier } from "../../sql/identifiers.js";
import { makeTest, VALUE_FUNCTIONS } from "../make-test.js";
import type { InferredTest } from "../types.js";

/**
 * Emitted for every value measure: the column's type is unknown here. The planner
 * skips it unless the schema says Float32/Float64 (possibly Nullable), because
 * isNaN/isInfinite fail on other types and only floats can hold NaN/Inf.
 */
export function measureFinite(ir: MetricIR): InferredTest[] {
  const table = ir.table;
  if (table === null) return [];
  return ir.measures.flatMap((measure) => {
    const column = measure.column;
    if (column === null || !VALUE_FUNCTIONS.has(measure.function)) return [];
    const quoted = quoteIdentifier(column);
    return [
      makeTest(ir, {
        rule: "measure_finite",
        name: `${measure.alias} (${column}) is never NaN or infinite`,
        check: `NOT isNaN(${column}) AND NOT isInfinite(${column})`,
        severity: "HIGH",
        confidence: "high",
        table,
        filter: ir.filter,
        columns: [{ table, column }],
        probe: { type: "rows_where", violation: `isNaN(${quoted}) OR isInfinite(${quoted})` },
      }),
    ];
  });
}
