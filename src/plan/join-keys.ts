// Adapts a join_referential_integrity test to the key columns' types, so that its
// `fk NOT IN (SELECT key ...)` runs on ClickHouse 18.16 as well as current releases.
import { orphanViolation } from "../infer/rules/join-referential-integrity.js";
import { sampleSql } from "../infer/sample-sql.js";
import type { InferredTest } from "../infer/types.js";
import { keyConversion } from "./column-types.js";
import type { Skip, WarehouseSchema } from "./types.js";

/** The test unchanged, the test with converted keys (probe and sample query), or why it cannot run. */
export function adaptJoinKeys(test: InferredTest, schema: WarehouseSchema): { test: InferredTest } | { skip: Skip } {
  const [left, right] = test.columns;
  if (test.rule !== "join_referential_integrity" || test.probe.type !== "rows_where" || !left || !right) return { test };
  // Keys that are expressions are compared as text already: only a join of two columns is adapted.
  if (test.probe.violation !== orphanViolation(left.column, right.table, right.column)) return { test };
  const tables = schema[test.datasource] ?? {};
  const leftType = tables[left.table]?.[left.column];
  const rightType = tables[right.table]?.[right.column];
  if (leftType === undefined || rightType === undefined) return { test }; // skipReason reports missing columns
  const conversion = keyConversion(leftType, rightType);
  if (conversion === null) {
    const reason = `${left.column} (${leftType}) cannot be compared with ${right.table}.${right.column} (${rightType})`;
    return { skip: { outcome: "not_evaluated", reason } };
  }
  if (conversion.convert === null) return { test };
  const probe = { type: "rows_where" as const, violation: orphanViolation(left.column, right.table, right.column, conversion.convert) };
  return { test: { ...test, probe, sample_sql: sampleSql(test.table, test.filter, probe) } };
}
