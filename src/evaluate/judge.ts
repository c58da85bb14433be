// Reads one test's verdict from its query row (or from the schema for `schema` probes).
import type { InferredTest } from "../infer/types.js";
import type { WarehouseSchema } from "../plan/types.js";
import { formatCount, formatDuration } from "./format.js";
import { rowsMessage } from "./messages.js";
import { statusFor } from "./status.js";
import type { TestStatus } from "./types.js";

export interface Verdict {
  status: TestStatus;
  rows_affected: number;
  rows_total: number;
  message: string;
}

/** Could not be evaluated (transient, or schema drift reported by columns_exist): a warning. */
export function notEvaluated(message: string): Verdict {
  return { status: "warning", rows_affected: 0, rows_total: 0, message };
}

/** rows_total = columns checked, rows_affected = columns missing. */
export function judgeSchema(test: InferredTest, schema: WarehouseSchema): Verdict {
  const tables = schema[test.datasource] ?? {};
  // A test without columns still asserts that its table exists.
  const refs = test.columns.length > 0 ? test.columns.map((ref) => ({ table: ref.table, column: ref.column as string | null })) : [{ table: test.table, column: null }];
  const missing = refs
    .filter((ref) => (ref.column === null ? !tables[ref.table] : tables[ref.table]?.[ref.column] === undefined))
    .map((ref) => (ref.column === null ? ref.table : `${ref.table}.${ref.column}`));
  const noun = test.columns.length > 0 ? "columns" : "tables";
  const list = missing.length > 0 ? `: ${missing.join(", ")}` : "";
  return {
    status: statusFor(missing.length, refs.length, test.severity, test.tolerance),
    rows_affected: missing.length,
    rows_total: refs.length,
    message: `${missing.length} of ${refs.length} ${noun} missing${list}`,
  };
}

/** Reads the row's values for the test's parts; UInt64 arrives as a string. */
export type Parts = Record<string, number | null>;

export function judgeRows(test: InferredTest, total: number, parts: Parts): Verdict {
  const probe = test.probe;
  switch (probe.type) {
    case "rows_where":
    case "duplicate_keys": {
      const violations = parts.violations;
      if (violations == null) return notEvaluated("not evaluated: query returned no violation count");
      return {
        status: statusFor(violations, total, test.severity, test.tolerance),
        rows_affected: violations,
        rows_total: total,
        message: rowsMessage(test, violations, total),
      };
    }
    case "not_empty": {
      // rows_affected is 1 when the table (after the filter) is empty: the one violation is "no rows".
      const where = test.filter === null ? "" : ` where ${test.filter}`;
      const empty = total === 0 ? 1 : 0;
      return {
        status: statusFor(empty, 1, test.severity, test.tolerance),
        rows_affected: empty,
        rows_total: total,
        message: `${formatCount(total)} rows in ${test.table}${where}`,
      };
    }
    case "staleness":
      return judgeStaleness(test, probe.maxSeconds, total, parts);
    case "schema":
      return notEvaluated("not evaluated: schema test reached the query stage"); // planner never queries these
  }
}

function judgeStaleness(test: InferredTest, maxSeconds: number, total: number, parts: Parts): Verdict {
  const allowed = formatDuration(maxSeconds);
  const fail = (message: string): Verdict => ({ status: statusFor(1, 1, test.severity, test.tolerance), rows_affected: 1, rows_total: total, message });
  // On an empty table max() returns the type default (1970), which is not a real timestamp.
  if (total === 0) return fail(`no rows, so no freshness (allowed ${allowed})`);
  const { max_ts: newest, now } = parts;
  if (newest == null) return fail(`no non-NULL timestamps, so no freshness (allowed ${allowed})`);
  if (now == null) return notEvaluated("not evaluated: query returned no server time");
  const age = now - newest;
  const stale = age > maxSeconds ? 1 : 0;
  const ageText = age < 0 ? `${formatDuration(-age)} in the future` : `${formatDuration(age)} old`;
  return {
    status: statusFor(stale, 1, test.severity, test.tolerance),
    rows_affected: stale,
    rows_total: total,
    message: `newest row is ${ageText} (allowed ${allowed})`,
  };
}
