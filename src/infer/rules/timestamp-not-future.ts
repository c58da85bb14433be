// Prevents: future-dated events (timezone or unit bugs) inflating "today" and hiding staleness.
import type { MetricIR } from "../../compile/ir.js";
import { timeSql } from "../../sql/value-expr.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";
import { columnRefs } from "../value-sql.js";
import { CLOCK_SKEW_SECONDS } from "../clock-skew.js";

export { CLOCK_SKEW_SECONDS };

export function timestampNotFuture(ir: MetricIR): InferredTest[] {
  const table = ir.table;
  const column = ir.timestamp;
  if (table === null || column === null) return [];
  return [
    makeTest(ir, {
      rule: "timestamp_not_future",
      name: `${column} is not in the future`,
      check: `${column} <= now() + ${CLOCK_SKEW_SECONDS}`,
      severity: "MEDIUM",
      confidence: "high",
      table,
      filter: ir.filter,
      columns: columnRefs(table, column),
      // toDateTime: ClickHouse 18.16 compares a Date with a DateTime wrongly (a 2030 Date
      // is not "> now()" there); the conversion is a no-op for DateTime columns.
      probe: { type: "rows_where", violation: `toDateTime(${timeSql(column)}) > now() + ${CLOCK_SKEW_SECONDS}` },
    }),
  ];
}
