// Prevents: schema drift (a renamed or dropped column or table) breaking the metric's query or its other tests.
import type { MetricIR } from "../../compile/ir.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";
import { valueColumns } from "../value-sql.js";

/** table -> referenced columns, base table first, then joined tables in join order. */
export function referencedColumns(ir: MetricIR): Map<string, Set<string>> {
  const byTable = new Map<string, Set<string>>();
  if (ir.table === null) return byTable;
  const add = (table: string, column: string | null) => {
    if (!byTable.has(table)) byTable.set(table, new Set());
    if (column !== null) byTable.get(table)!.add(column);
  };
  add(ir.table, null);
  for (const join of ir.joins) add(join.table, null);
  for (const measure of ir.measures) {
    add(ir.table, measure.column);
    // An expression's columns are lexed: a heuristic, but a renamed column is caught as drift.
    for (const column of measure.expr_columns) add(ir.table, column);
  }
  for (const dimension of ir.dimensions) {
    add(dimension.source_table ?? ir.table, dimension.column);
    for (const column of dimension.expr_columns) add(dimension.source_table ?? ir.table, column);
  }
  for (const join of ir.joins) {
    for (const column of valueColumns(join.left_column)) add(join.from_table, column);
    for (const column of valueColumns(join.right_column)) add(join.table, column);
  }
  // A timestamp or key defined by an expression: the columns it reads (lexed).
  for (const value of [ir.timestamp, ir.primary_key]) if (value !== null) for (const column of valueColumns(value)) add(ir.table, column);
  // The filter's columns are not listed: SQL predicates cannot be parsed reliably here.
  return byTable;
}

export function columnsExist(ir: MetricIR): InferredTest[] {
  return [...referencedColumns(ir)].map(([table, set]) => {
    // Sorted, so two metrics that use the same columns share one key.
    const columns = [...set].sort();
    const list = columns.length > 0 ? columns.join(", ") : "(table only)";
    return makeTest(ir, {
      rule: "columns_exist",
      name: `columns used from ${table} exist`,
      check: `${table} has columns ${list}`,
      severity: "HIGH",
      confidence: "high",
      table,
      // The schema does not depend on the filter; null lets every metric on the table share it.
      filter: null,
      columns: columns.map((column) => ({ table, column })),
      probe: { type: "schema" },
    });
  });
}
