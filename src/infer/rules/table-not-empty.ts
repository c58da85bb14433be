// Prevents: an empty (or fully filtered-out) base table makes every aggregate 0 or NULL, which reads as a real value.
import type { MetricIR } from "../../compile/ir.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";

export function tableNotEmpty(ir: MetricIR): InferredTest[] {
  if (ir.table === null) return [];
  const where = ir.filter === null ? "" : ` where ${ir.filter}`;
  return [
    makeTest(ir, {
      rule: "table_not_empty",
      name: `${ir.table} has rows${where}`,
      check: "count() > 0",
      severity: "HIGH",
      confidence: "high",
      table: ir.table,
      filter: ir.filter,
      columns: [],
      probe: { type: "not_empty" },
    }),
  ];
}
