// ClickHouse type names as system.columns reports them, reduced to what the planner must
// know: which probes a column can take, and how to compare two join keys on every version.

/** "Nullable(LowCardinality(String))" -> "String": the wrappers change no comparison. */
export function baseType(type: string): string {
  let current = type.trim();
  for (;;) {
    const match = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(current);
    if (!match) return current;
    current = match[1]!.trim();
  }
}

const INTEGER = /^U?Int(8|16|32|64|128|256)$/;
const NUMBER = /^(U?Int(8|16|32|64|128|256)|Float(32|64)|BFloat16|Decimal(32|64|128|256)?\(.*\))$/;
const TIME = /^(Date|Date32|DateTime|DateTime64)(\(.*\))?$/;
const TEXT = /^(String|FixedString\(\d+\))$/;

export const isNumberType = (type: string): boolean => NUMBER.test(baseType(type));
/** Date/DateTime, or a number (read as a unix timestamp by toDateTime). */
export const isTimeLikeType = (type: string): boolean => TIME.test(baseType(type)) || isNumberType(type);

/**
 * How to make `left IN (SELECT right ...)` valid: ClickHouse 18.16 requires both sides of
 * IN to have the same type up to Nullable/LowCardinality (UInt32 vs UInt64 is an error
 * there, and the error would fail every other test of the table's query).
 * - convert null: the types already match;
 * - convert "toUInt64"/"toInt64"/"toString": apply to both sides (exact for integers:
 *   widening keeps the value, and the decimal text of an integer is canonical);
 * - null: no exact common form (e.g. String vs UInt32, Date vs DateTime).
 */
export function keyConversion(left: string, right: string): { convert: string | null } | null {
  const l = baseType(left);
  const r = baseType(right);
  if (l === r) return { convert: null };
  if (INTEGER.test(l) && INTEGER.test(r)) {
    const wide = /(128|256)$/.test(l) || /(128|256)$/.test(r);
    const unsigned = l.startsWith("U");
    if (wide || unsigned !== r.startsWith("U")) return { convert: "toString" };
    return { convert: unsigned ? "toUInt64" : "toInt64" };
  }
  if (TEXT.test(l) && TEXT.test(r)) return { convert: "toString" };
  return null;
}
