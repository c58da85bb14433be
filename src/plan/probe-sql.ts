// Aggregate expressions that answer each probe inside a table's single scan query.
// Only functions present in both ClickHouse 18.16 and current releases are used:
// count, countIf, uniqExact, uniqExactIf, ifNull, max, maxIf, toDateTime, toUnixTimestamp,
// toUInt64, now, isNotNull.
//
// ifNull(..., 0): on ClickHouse 18.16 an aggregate over a Nullable argument returns NULL
// when it saw no non-NULL value (an empty table, a filter matching nothing, an all-NULL
// key column): countIf(`amount` < 0) and uniqExact(`key`) then read as "no answer", while
// current releases return 0. NULL there means "nothing counted", so 0 is exact. It is left
// out only when no argument can be NULL: no condition (a filter's type is not known) and
// every column the probe reads is non-Nullable in the schema.
//
// `condition` is the test's filter when the query holds several filters of one table (the
// filter then conditions each aggregate instead of the WHERE); null when the query's WHERE
// (or the absence of a filter) already selects exactly the test's rows.
import type { InferredTest } from "../infer/types.js";

/** One result column a test needs; `part` tells evaluate how to read it. */
export interface ProbeExpression {
  part: "violations" | "max_ts" | "now" | "total";
  /** SQL expression, or null for "read the query's `total` column" (count() of its rows) */
  expression: string | null;
}

/** Rows the test is judged against: the query's count(), or its filter's share of the rows. */
export function totalExpression(condition: string | null): ProbeExpression {
  return { part: "total", expression: condition === null ? null : `ifNull(countIf(${condition}), 0)` };
}

/**
 * `nullable`: some column the probe reads is (or may be) Nullable. When false, the
 * NULL-guards are dropped: they cost time on current releases and cannot change a count.
 */
export function probeExpressions(test: InferredTest, condition: string | null, nullable: boolean): ProbeExpression[] {
  const probe = test.probe;
  const guard = (expression: string): string => (condition === null && !nullable ? expression : `ifNull(${expression}, 0)`);
  switch (probe.type) {
    case "rows_where": {
      const where = condition === null ? probe.violation : `(${condition}) AND (${probe.violation})`;
      return [{ part: "violations", expression: guard(`countIf(${where})`) }];
    }
    case "duplicate_keys": {
      // Extra rows per key. NULL keys are not counted: uniqExact skips NULLs, so
      // count() - uniqExact would report every NULL-key row as a duplicate.
      const k = probe.key;
      if (condition === null) {
        const expression = nullable ? `(countIf(isNotNull(${k})) - ifNull(uniqExact(${k}), 0))` : `(count() - uniqExact(${k}))`;
        return [{ part: "violations", expression }];
      }
      const where = nullable ? `(${condition}) AND isNotNull(${k})` : condition;
      return [{ part: "violations", expression: `(ifNull(countIf(${where}), 0) - ifNull(uniqExactIf(${k}, ${where}), 0))` }];
    }
    case "not_empty":
      return []; // answered by the test's total
    case "staleness": {
      // toDateTime lets Date columns through toUnixTimestamp (18.16 rejects Date there).
      // now() comes from the server, so evaluation does not depend on the daemon's clock.
      const newest = condition === null ? `max(${probe.column})` : `maxIf(${probe.column}, ${condition})`;
      return [
        { part: "max_ts", expression: `toUInt64(toUnixTimestamp(toDateTime(${newest})))` },
        { part: "now", expression: "toUInt64(toUnixTimestamp(now()))" },
      ];
    }
    case "schema":
      return []; // answered from system.columns, never queried
    case "volume_series":
    case "value_series":
    case "load_cadence":
      return []; // answered by the anomaly series queries (series-query.ts), never by this one
  }
}
