// What a measure or dimension reads, as SQL plus the columns behind it, and which rows of a
// joined table a metric reaches. Shared by the rules so each treats a column and an `expr`
// alike.
import type { DimensionIR, MeasureIR, MetricIR } from "../compile/ir.js";
import { filterColumns } from "../catalog/filter-columns.js";
import { quoteIdentifier, quoteTable } from "../sql/identifiers.js";
import { isExpression, valueSql } from "../sql/value-expr.js";

/** The columns a timestamp or key reads: itself, or the columns its expression reads (lexed). */
export function valueColumns(value: string): string[] {
  return isExpression(value) ? filterColumns(value) : [value];
}

/** `columns` of a test on `table` that reads `value` (a column or an expression). */
export function columnRefs(table: string, value: string): { table: string; column: string }[] {
  return valueColumns(value).map((column) => ({ table, column }));
}

export interface ValueSql {
  /** `column` quoted, or `(expr)` */
  sql: string;
  /** text for check/name strings: the column, or the expression */
  label: string;
  /** columns read (of the table the value lives on) */
  columns: string[];
  /** a plain column (not an expression) */
  plain: boolean;
}

/** null for a row count or a constant expression (sum of 1): there is no value to test. */
export function valueOf(item: Pick<MeasureIR | DimensionIR, "column" | "expr" | "expr_columns">): ValueSql | null {
  if (item.column !== null) return { sql: quoteIdentifier(item.column), label: item.column, columns: [item.column], plain: true };
  if (item.expr !== null && item.expr_columns.length > 0)
    return { sql: `(${item.expr})`, label: item.expr, columns: [...item.expr_columns], plain: false };
  return null;
}

/**
 * table -> the filter selecting exactly the rows the metric reads from it: the base table's
 * own filter, and for a joined table the keys its join reaches from those rows,
 * `toString(key) IN (SELECT toString(fk) FROM <from> WHERE <from's reach>)`, hop by hop.
 * toString keeps the IN valid on ClickHouse 18.16, which demands equal key types.
 * `baseFilter` overrides the base filter (null: every base row, for checks whose violations
 * the filter itself would hide).
 */
export function reachFilters(ir: MetricIR, baseFilter: string | null = ir.filter): Map<string, string | null> {
  const reach = new Map<string, string | null>();
  if (ir.table === null) return reach;
  reach.set(ir.table, baseFilter);
  for (const join of ir.joins) {
    if (reach.has(join.table) || !reach.has(join.from_table)) continue;
    const from = reach.get(join.from_table)!;
    const where = from === null ? "" : ` WHERE ${from}`;
    reach.set(
      join.table,
      `toString(${valueSql(join.right_column)}) IN (SELECT toString(${valueSql(join.left_column)}) FROM ${quoteTable(join.from_table)}${where})`,
    );
  }
  return reach;
}
