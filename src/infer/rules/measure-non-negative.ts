// Prevents: negative amounts (refunds, sign bugs) silently netting off a sum that should only grow.
import type { MetricIR } from "../../compile/ir.js";
import { declaredNonNegative } from "../../compile/measure-hints.js";
import { makeTest, VALUE_FUNCTIONS } from "../make-test.js";
import type { InferredTest } from "../types.js";
import { valueOf } from "../value-sql.js";

const AMOUNT_WORDS = new Set(["amount", "revenue", "price", "cost", "total", "qty", "quantity", "value", "fee", "spend", "sales"]);

/** amount-like when one word of the (snake_case or camelCase) name is in the list, plural allowed. */
export function isAmountLike(column: string): boolean {
  const words = column
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split("_");
  return words.some((word) => AMOUNT_WORDS.has(word) || (word.endsWith("s") && AMOUNT_WORDS.has(word.slice(0, -1))));
}

export function measureNonNegative(ir: MetricIR): InferredTest[] {
  const table = ir.table;
  if (table === null) return [];
  return ir.measures.flatMap((measure) => {
    const value = valueOf(measure);
    if (value === null || !VALUE_FUNCTIONS.has(measure.function)) return [];
    // Declared true: implied by the definition. Declared false: the author says negatives
    // are legitimate, so the name heuristic is switched off too. An expression is judged
    // by the measure's name (e.g. booking_value over `price * qty`).
    const declared = declaredNonNegative(measure);
    const named = value.plain ? value.label : measure.alias;
    if (declared === false || (declared === undefined && !isAmountLike(named))) return [];
    return [
      makeTest(ir, {
        rule: "measure_non_negative",
        name: `${measure.alias} (${value.label}) is never negative`,
        check: `${value.label} >= 0`,
        severity: "MEDIUM",
        confidence: declared === true ? "high" : "medium",
        table,
        filter: ir.filter,
        columns: value.columns.map((column) => ({ table, column })),
        probe: { type: "rows_where", violation: `${value.sql} < 0` },
      }),
    ];
  });
}
