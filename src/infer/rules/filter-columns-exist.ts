// Prevents: a renamed or dropped filter column turning every query on the table into an error,
// or (worse) a filter that silently means something else after a schema change.
import type { MetricIR } from "../../compile/ir.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";

export function filterColumnsExist(ir: MetricIR): InferredTest[] {
  const table = ir.table;
  if (table === null || ir.filter === null || ir.filter_columns.length === 0) return [];
  const columns = [...ir.filter_columns].sort();
  return [
    makeTest(ir, {
      rule: "filter_columns_exist",
      name: `columns read by the filter exist in ${table}`,
      check: `${table} has columns ${columns.join(", ")}`,
      severity: "HIGH",
      // The columns are found by lexing the filter, not parsing it: a heuristic.
      confidence: "medium",
      table,
      filter: null,
      columns: columns.map((column) => ({ table, column })),
      probe: { type: "schema" },
    }),
  ];
}
