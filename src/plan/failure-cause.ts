// Which rows make an isolated expression throw, when that can be told safely from ClickHouse's
// error code and the expression's conversions: a NULL reaching `cast(col AS Date)` (code 349 on
// 18.16 and 26.x alike), or a string `toDate(col)` cannot read (codes 6, 27, 38, 41, 72). The
// count uses only functions present on 18.16 (countIf, isNull, to<Type>OrNull), and none of
// them can throw on the values they look at.
import { filterColumns } from "../catalog/filter-columns.js";
import { quoteIdentifier } from "../sql/identifiers.js";
import { baseType } from "./column-types.js";

/** An aggregate counting the rows that make the expression throw, and what those rows have. */
export interface FailureCause {
  /** e.g. countIf(isNull(`ordered_at`)) */
  count: string;
  /** the rows "have ...": e.g. "NULL ordered_at" */
  cause: string;
}

/** CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN: "Cannot convert NULL value to non-Nullable type". */
const NULL_CODES = new Set([349]);
/** CANNOT_PARSE_TEXT, CANNOT_PARSE_INPUT_ASSERTION_FAILED, CANNOT_PARSE_DATE, CANNOT_PARSE_DATETIME, CANNOT_PARSE_NUMBER */
const PARSE_CODES = new Set([6, 27, 38, 41, 72]);

/** Conversions whose -OrNull twin returns NULL exactly where they throw (present on 18.16), by lower-case type name. */
const OR_NULL = new Map(
  ["Date", "DateTime", "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64", "Float32", "Float64"].map((t) => [
    t.toLowerCase(),
    t,
  ]),
);
const TEXT = /^(String|FixedString\(\d+\))$/;

const NAME = "`?([A-Za-z_][A-Za-z0-9_]*)`?";
const CAST = new RegExp(String.raw`\bCAST\s*\(\s*${NAME}\s+AS\s+([A-Za-z0-9_]+(?:\([^()]*\))?)\s*\)`, "gi");
const CAST_COMMA = new RegExp(String.raw`\bCAST\s*\(\s*${NAME}\s*,\s*'([A-Za-z0-9_]+(?:\([^()']*\))?)'\s*\)`, "gi");
const TO_TYPE = new RegExp(String.raw`\bto(Date|DateTime|U?Int(?:8|16|32|64)|Float(?:32|64))\s*\(\s*${NAME}\s*\)`, "g");

interface Conversion {
  column: string;
  /** target type, e.g. Date */
  type: string;
  /** CAST (throws on a NULL for a non-Nullable target) rather than toT (passes NULL through) */
  cast: boolean;
}

/** `cast(col AS T)`, `CAST(col, 'T')` and `toT(col)` applied directly to a column, in the order they appear. */
function conversions(sql: string): Conversion[] {
  const found: (Conversion & { at: number })[] = [];
  for (const m of sql.matchAll(CAST)) found.push({ column: m[1]!, type: m[2]!, cast: true, at: m.index });
  for (const m of sql.matchAll(CAST_COMMA)) found.push({ column: m[1]!, type: m[2]!, cast: true, at: m.index });
  for (const m of sql.matchAll(TO_TYPE)) found.push({ column: m[2]!, type: m[1]!, cast: false, at: m.index });
  return found.sort((a, b) => a.at - b.at);
}

const isNullable = (type: string): boolean => /^(LowCardinality\()?Nullable\(/.test(type.trim());
const unique = <T>(items: T[]): T[] => [...new Set(items)];
const names = (columns: string[]): string => columns.join(" or ");

/**
 * The count of rows that make `sql` throw with ClickHouse error `code`, or null when that cannot
 * be told safely. `columns`: the scanned table's column types (name -> type).
 */
export function failureCause(sql: string, code: number | null, columns: Readonly<Record<string, string>>): FailureCause | null {
  if (code === null) return null;
  const found = conversions(sql).filter((c) => columns[c.column] !== undefined);
  if (NULL_CODES.has(code)) {
    const casts = found.filter((c) => c.cast && !/^Nullable\(/i.test(c.type));
    let nullable = unique(casts.map((c) => c.column).filter((c) => isNullable(columns[c]!)));
    // No recognisable conversion: only a single Nullable column read tells the rows apart.
    if (nullable.length === 0) {
      const read = filterColumns(sql).filter((c) => columns[c] !== undefined && isNullable(columns[c]));
      if (read.length !== 1) return null;
      nullable = read;
    }
    const condition = nullable.map((c) => `isNull(${quoteIdentifier(c)})`).join(" OR ");
    return { count: `countIf(${condition})`, cause: `NULL ${names(nullable)}` };
  }
  if (PARSE_CODES.has(code)) {
    const parsed = found.flatMap((c) => {
      const type = OR_NULL.get(c.type.toLowerCase());
      return type !== undefined && TEXT.test(baseType(columns[c.column]!)) ? [{ column: c.column, type }] : [];
    });
    if (parsed.length === 0) return null;
    const conditions = unique(
      parsed.map((c) => `(isNotNull(${quoteIdentifier(c.column)}) AND isNull(to${c.type}OrNull(${quoteIdentifier(c.column)})))`),
    );
    const what = unique(parsed.map((c) => `${c.column} that is not a valid ${c.type}`));
    return { count: `countIf(${conditions.join(" OR ")})`, cause: `a ${what.join(" or a ")}` };
  }
  return null;
}
