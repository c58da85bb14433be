// Aggregate expressions that answer each probe inside a table's single scan query.
// Only functions present in both ClickHouse 18.16 and current releases are used:
// count, countIf, uniqExact, ifNull, max, toDateTime, toUnixTimestamp, toUInt64, now, isNotNull.
//
// ifNull(..., 0): on ClickHouse 18.16 an aggregate over a Nullable argument returns NULL
// when it saw no non-NULL value (an empty table, a filter matching nothing, an all-NULL
// key column): countIf(`amount` < 0) and uniqExact(`key`) then read as "no answer", while
// current releases return 0. NULL there means "nothing counted", so 0 is exact.
import type { InferredTest } from "../infer/types.js";

/** One result column a test needs; `part` tells evaluate how to read it. */
export interface ProbeExpression {
  part: "violations" | "max_ts" | "now" | "rows";
  /** SQL expression, or null for "read the query's `total` column" */
  expression: string | null;
}

export function probeExpressions(test: InferredTest): ProbeExpression[] {
  const probe = test.probe;
  switch (probe.type) {
    case "rows_where":
      return [{ part: "violations", expression: `ifNull(countIf(${probe.violation}), 0)` }];
    case "duplicate_keys":
      // Extra rows per key. NULL keys are not counted: uniqExact skips NULLs, so
      // count() - uniqExact would report every NULL-key row as a duplicate.
      return [{ part: "violations", expression: `(countIf(isNotNull(${probe.key})) - ifNull(uniqExact(${probe.key}), 0))` }];
    case "not_empty":
      // Answered by the query's `total`; the output still maps the test to its query.
      return [{ part: "rows", expression: null }];
    case "staleness":
      // toDateTime lets Date columns through toUnixTimestamp (18.16 rejects Date there).
      // now() comes from the server, so evaluation does not depend on the daemon's clock.
      return [
        { part: "max_ts", expression: `toUInt64(toUnixTimestamp(toDateTime(max(${probe.column}))))` },
        { part: "now", expression: "toUInt64(toUnixTimestamp(now()))" },
      ];
    case "schema":
      return []; // answered from system.columns, never queried
  }
}
