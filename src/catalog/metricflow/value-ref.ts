// An element's value (entity, dimension, measure): its `expr` when given, else the column
// named like the element. A plain name is a column; anything else is an SQL expression,
// guarded like a filter because it is pasted into queries.
import { isIdentifier } from "../../sql/identifiers.js";
import { filterProblem } from "../filter-check.js";

/** A column, or an SQL expression (e.g. "1", "price * qty"): `column` is set only for a plain name. */
export interface ValueRef {
  column: string | null;
  expr: string | null;
}

/** `expr` as YAML reads it: SQL text, or a constant such as `1` or `true`. */
export type ExprInput = string | number | boolean | null | undefined;

export function valueRef(name: string, expr: ExprInput): ValueRef | { problem: string } {
  if (expr === undefined || expr === null)
    return isIdentifier(name) ? { column: name, expr: null } : { problem: `name ${JSON.stringify(name)} is not a column name: give expr` };
  const sql = typeof expr === "string" ? expr.trim() : String(expr);
  if (isIdentifier(sql)) return { column: sql, expr: null };
  const problem = filterProblem(sql);
  if (problem !== null) return { problem: `expr ${JSON.stringify(sql)} ${problem}` };
  return { column: null, expr: sql };
}
