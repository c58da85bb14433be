// Decides, from the warehouse schema alone, whether a test can be sent at all.
import type { InferredTest } from "../infer/types.js";
import { isQualifiedTable } from "../sql/identifiers.js";
import type { WarehouseSchema } from "./types.js";

const FLOAT_TYPE = /Float(32|64)/;

/** Reason the test must not be queried, or null when it can run. */
export function skipReason(test: InferredTest, schema: WarehouseSchema): string | null {
  // An invalid name could not be quoted into SQL; it can never be in the schema either.
  if (!isQualifiedTable(test.table)) return `not evaluated: invalid table name: ${test.table}`;
  const tables = schema[test.datasource] ?? {};
  if (!tables[test.table]) return `not evaluated: table missing: ${test.table}`;
  for (const ref of test.columns) {
    const columns = tables[ref.table];
    if (!columns) return `not evaluated: table missing: ${ref.table}`;
    if (columns[ref.column] === undefined) return `not evaluated: column missing: ${ref.table}.${ref.column}`;
  }
  if (test.rule === "measure_finite") {
    // NaN/Inf exist only in floats (also inside Nullable(...)/LowCardinality(...)); for
    // other types isNaN/isInfinite may not even accept the column, so the check does not apply.
    for (const ref of test.columns) {
      const type = tables[ref.table]?.[ref.column] ?? "";
      if (!FLOAT_TYPE.test(type)) return `not applicable: ${ref.column} is ${type}, not a float`;
    }
  }
  return null;
}
