// A metric's timestamp, primary key or join key is a column or an SQL expression (MetricFlow's
// `expr: date_trunc('day', created_at)`, `player_id || '-' || season`). One string holds either,
// without ambiguity: the catalogue turns an `expr` that is a plain name into that column, so a
// string that is an identifier is a column and anything else is an expression.
import { isIdentifier, quoteIdentifier } from "./identifiers.js";

/** True for an SQL expression, false for a column name. */
export function isExpression(value: string): boolean {
  return !isIdentifier(value);
}

/** A column quoted, or an expression in parentheses: what a check reads as the value. */
export function valueSql(value: string): string {
  return isIdentifier(value) ? quoteIdentifier(value) : `(${value})`;
}

/**
 * A time value: a column quoted (its type, read from the schema, says how to bucket it), or an
 * expression read as a DateTime. `toDateTime` accepts a Date, a DateTime, unix seconds and
 * 'YYYY-MM-DD hh:mm:ss' text alike on ClickHouse 18.16 and current releases, so an expression's
 * time kind is known without asking the warehouse for its type.
 */
export function timeSql(value: string): string {
  return isIdentifier(value) ? quoteIdentifier(value) : `toDateTime(${value})`;
}
