// Per-rule wording of row-test messages; unknown rules fall back to the check text.
import type { InferredTest } from "../infer/types.js";
import { formatCount, formatPercent } from "./format.js";

function phrase(test: InferredTest, plural: boolean): string {
  const column = test.columns.find((ref) => ref.table === test.table)?.column ?? test.columns[0]?.column;
  const other = test.columns.find((ref) => ref.table !== test.table);
  const have = plural ? "have" : "has";
  if (column === undefined) return `${plural ? "violate" : "violates"}: ${test.check}`;
  switch (test.rule) {
    case "measure_not_null":
    case "count_key_not_null":
    case "primary_key_not_null":
    case "foreign_key_not_null":
    case "filter_column_not_null":
    case "dbt_not_null":
      return `${have} NULL ${column}`;
    case "dimension_accepted_values":
    case "dbt_accepted_values":
      return `${have} a ${column} outside the accepted values`;
    case "dimension_not_null":
      return `${have} NULL or empty ${column}`;
    case "measure_finite":
      return `${have} NaN or infinite ${column}`;
    case "measure_non_negative":
      return `${have} negative ${column}`;
    case "timestamp_not_future":
      return `${have} ${column} in the future`;
    case "join_key_unique":
    case "primary_key_unique":
    case "dbt_unique":
      return `${plural ? "are" : "is an"} extra ${plural ? "rows" : "row"} with a duplicate ${column}`;
    case "join_referential_integrity":
    case "dbt_relationships":
      return other
        ? `${have} ${column} with no match in ${other.table}.${other.column}`
        : `${plural ? "violate" : "violates"}: ${test.check}`;
    default:
      return `${plural ? "violate" : "violates"}: ${test.check}`;
  }
}

/** "12 of 10,000 rows (0.12%) have NULL amount" */
export function rowsMessage(test: InferredTest, violations: number, total: number): string {
  const plural = violations !== 1;
  return `${formatCount(violations)} of ${formatCount(total)} rows (${formatPercent(violations, total)}%) ${phrase(test, plural)}`;
}
