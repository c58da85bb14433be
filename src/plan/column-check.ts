// Decides, from the warehouse schema alone, whether a test can be sent at all. A probe that
// cannot work on a column's type is kept out of the query: otherwise its error would fail
// every other test that shares the table's single query.
import type { InferredTest } from "../infer/types.js";
import { isQualifiedTable } from "../sql/identifiers.js";
import { isNumberType, isTimeLikeType } from "./column-types.js";
import type { Skip, WarehouseSchema } from "./types.js";

const FLOAT_TYPE = /Float(32|64)/;

const describe = (typed: { column: string; type: string }[]): string => typed.map(({ column, type }) => `${column} is ${type}`).join(", ");

const notEvaluated = (reason: string): Skip => ({ outcome: "not_evaluated", reason });
const notApplicable = (reason: string): Skip => ({ outcome: "not_applicable", reason });

/** Why the test must not be queried, or null when it can run. */
export function skipReason(test: InferredTest, schema: WarehouseSchema): Skip | null {
  // An invalid name could not be quoted into SQL; it can never be in the schema either.
  if (!isQualifiedTable(test.table)) return notEvaluated(`invalid table name: ${test.table}`);
  const tables = schema[test.datasource] ?? {};
  if (!tables[test.table]) return notEvaluated(`table missing: ${test.table}`);
  for (const ref of [...test.columns, ...test.filter_columns]) {
    const columns = tables[ref.table];
    if (!columns) return notEvaluated(`table missing: ${ref.table}`);
    if (columns[ref.column] === undefined) return notEvaluated(`column missing: ${ref.table}.${ref.column}`);
  }
  const typed = test.columns.map((ref) => ({ column: ref.column, type: tables[ref.table]?.[ref.column] ?? "" }));
  switch (test.rule) {
    case "measure_finite":
      // NaN/Inf exist only in floats (also inside Nullable(...)/LowCardinality(...)); for
      // other types isNaN/isInfinite may not even accept the column, so the check does not
      // apply. An expression can be NaN when some column it reads is a float.
      if (!typed.some(({ type }) => FLOAT_TYPE.test(type))) return notApplicable(`${describe(typed)}, not a float`);
      return null;
    case "measure_non_negative":
      // Max(String) is a valid measure, but `< 0` on a string is a type error.
      if (!typed.some(({ type }) => isNumberType(type))) return notApplicable(`${describe(typed)}, not a number`);
      return null;
    case "filter_column_not_null":
      // A column that cannot hold NULL needs no query: and this unfiltered check would otherwise
      // force a filtered table's query to fold its filter into every aggregate.
      if (!typed.some(({ type }) => /^(LowCardinality\()?Nullable\(/.test(type.trim())))
        return notApplicable(`${describe(typed)}, never NULL`);
      return null;
    case "timestamp_not_future":
    case "freshness":
      // toDateTime() of a String throws on the first unparsable value: not a reliable timestamp.
      for (const { column, type } of typed) if (!isTimeLikeType(type)) return notEvaluated(`${column} is ${type}, not a Date or DateTime`);
      return null;
    default:
      return null;
  }
}
