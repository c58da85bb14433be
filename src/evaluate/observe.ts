// Raw query rows (or the schema) -> what each distinct check found. No metric's severity or
// tolerance here: judge.ts applies those per test.
import type { InferredTest } from "../infer/types.js";
import type { FailedCheck, WarehouseSchema } from "../plan/types.js";
import { formatCount, formatDuration, formatPercent } from "./format.js";
import { rowsMessage } from "./messages.js";
import type { CheckObservation } from "./types.js";

/** Could not be evaluated (schema drift, a query ClickHouse rejected): a warning for every metric. */
export function notEvaluated(reason: string): CheckObservation {
  return { outcome: "not_evaluated", rows_affected: 0, rows_total: 0, message: `not evaluated: ${reason}` };
}

/** Does not apply (a NaN check on an integer column): passing, and vouches for nothing. */
export function notApplicable(reason: string): CheckObservation {
  return { outcome: "not_applicable", rows_affected: 0, rows_total: 0, message: `not applicable: ${reason}` };
}

/**
 * The check's own SQL (or its filter) throws on today's data: failing, and its metric unreliable.
 * The message names what throws and quotes ClickHouse; rows_affected counts the rows that make it
 * throw when they could be counted (0 otherwise, and the message does not claim a count).
 */
export function failedToCompute(test: InferredTest, failed: FailedCheck): CheckObservation {
  const what = failed.part === "filter" ? `filter ${test.filter ?? ""}` : `check ${test.check}`;
  const affected = failed.rows_affected;
  const rows =
    affected === null || failed.cause === null
      ? ""
      : `; ${formatCount(affected)} of ${formatCount(failed.rows_total)} rows (${formatPercent(affected, failed.rows_total)}%) ${affected === 1 ? "has" : "have"} ${failed.cause}`;
  return {
    outcome: "failed",
    rows_affected: affected ?? 0,
    rows_total: failed.rows_total,
    message: `failed to compute: the ${what} throws on today's data (${failed.error})${rows}`,
  };
}

const measured = (rows_affected: number, rows_total: number, message: string): CheckObservation => ({
  outcome: "measured",
  rows_affected,
  rows_total,
  message,
});

/** rows_total = columns checked, rows_affected = columns missing. */
export function observeSchema(test: InferredTest, schema: WarehouseSchema): CheckObservation {
  const tables = schema[test.datasource] ?? {};
  // A test without columns still asserts that its table exists.
  const refs =
    test.columns.length > 0 ? test.columns.map((ref) => ({ table: ref.table, column: ref.column })) : [{ table: test.table, column: null }];
  const missing = refs
    .filter((ref) => (ref.column === null ? !tables[ref.table] : tables[ref.table]?.[ref.column] === undefined))
    .map((ref) => (ref.column === null ? ref.table : `${ref.table}.${ref.column}`));
  const noun = test.columns.length > 0 ? "columns" : "tables";
  const list = missing.length > 0 ? `: ${missing.join(", ")}` : "";
  return measured(missing.length, refs.length, `${missing.length} of ${refs.length} ${noun} missing${list}`);
}

/** The row's values for the test's parts; UInt64 arrives as a string. */
export type Parts = Record<string, number | null>;

export function observeRows(test: InferredTest, total: number, parts: Parts): CheckObservation {
  const probe = test.probe;
  switch (probe.type) {
    case "rows_where":
    case "duplicate_keys": {
      const violations = parts.violations;
      if (violations == null) return notEvaluated("query returned no violation count");
      return measured(violations, total, rowsMessage(test, violations, total));
    }
    case "not_empty": {
      // rows_affected is 1 when the table (after the filter) is empty: the one violation is "no rows".
      const where = test.filter === null ? "" : ` where ${test.filter}`;
      return measured(total === 0 ? 1 : 0, total, `${formatCount(total)} rows in ${test.table}${where}`);
    }
    case "staleness":
      return observeStaleness(probe.maxSeconds, total, parts);
    case "schema":
      return notEvaluated("schema test reached the query stage"); // planner never queries these
    case "volume_series":
    case "value_series":
    case "load_cadence":
      return notEvaluated("anomaly test reached the table query stage"); // observed from its series
  }
}

/** Exported for scan/unchanged-checks.ts: an unchanged table's newest timestamp is judged again with the current clock. */
export function observeStaleness(maxSeconds: number, total: number, parts: Parts): CheckObservation {
  const allowed = formatDuration(maxSeconds);
  // On an empty table max() returns the type default (1970), which is not a real timestamp.
  if (total === 0) return measured(1, total, `no rows, so no freshness (allowed ${allowed})`);
  const { max_ts: newest, now } = parts;
  if (newest == null) return measured(1, total, `no non-NULL timestamps, so no freshness (allowed ${allowed})`);
  if (now == null) return notEvaluated("query returned no server time");
  const age = now - newest;
  const ageText = age < 0 ? `${formatDuration(-age)} in the future` : `${formatDuration(age)} old`;
  return { ...measured(age > maxSeconds ? 1 : 0, total, `newest row is ${ageText} (allowed ${allowed})`), newest };
}
