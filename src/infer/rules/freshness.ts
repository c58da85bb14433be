// Prevents: a stalled pipeline leaving the metric frozen at an old but plausible value.
import type { MetricIR } from "../../compile/ir.js";
import { timeSql } from "../../sql/value-expr.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";
import { columnRefs } from "../value-sql.js";

const UNITS: [string, number][] = [
  ["w", 604_800],
  ["d", 86_400],
  ["h", 3600],
  ["m", 60],
];

/** 21600 -> "6h": the largest unit that divides exactly, as the definition likely wrote it. */
export function formatSeconds(seconds: number): string {
  const unit = UNITS.find(([, size]) => seconds % size === 0);
  return unit ? `${seconds / unit[1]}${unit[0]}` : `${seconds}s`;
}

export function freshness(ir: MetricIR): InferredTest[] {
  const table = ir.table;
  const column = ir.timestamp;
  const maxSeconds = ir.freshness_seconds;
  if (table === null || column === null || maxSeconds === null) return [];
  return [
    makeTest(ir, {
      rule: "freshness",
      name: `newest ${column} is at most ${formatSeconds(maxSeconds)} old`,
      check: `max(${column}) >= now() - ${maxSeconds}`,
      severity: "HIGH",
      confidence: "high",
      table,
      // Freshness is a property of the table's loading, not of a segment: a selective filter's
      // newest row may be days old on a table loaded an hour ago. Unfiltered, it is shared by
      // every metric on the table.
      filter: null,
      columns: columnRefs(table, column),
      probe: { type: "staleness", column: timeSql(column), maxSeconds },
    }),
  ];
}
