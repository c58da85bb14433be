// Prevents: base rows whose foreign key has no match, silently dropped by inner joins or grouped under empty keys by left joins.
import type { MetricIR } from "../../compile/ir.js";
import { quoteTable } from "../../sql/identifiers.js";
import { isExpression, valueSql } from "../../sql/value-expr.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";
import { columnRefs, reachFilters } from "../value-sql.js";

/**
 * Rows whose key has no match. A NULL key is not an orphan (it has no key at all); ClickHouse
 * drops NULLs from the IN set, so NULLs on the joined side cannot turn NOT IN into "never true".
 * `convert` (e.g. "toUInt64") wraps both keys; the planner picks it from the column types.
 */
export function orphanViolation(leftColumn: string, joinedTable: string, rightColumn: string, convert: string | null = null): string {
  const left = valueSql(leftColumn);
  const right = valueSql(rightColumn);
  const wrap = (key: string) => (convert === null ? key : `${convert}(${key})`);
  return `isNotNull(${left}) AND ${wrap(left)} NOT IN (SELECT ${wrap(right)} FROM ${quoteTable(joinedTable)})`;
}

export function joinReferentialIntegrity(ir: MetricIR): InferredTest[] {
  if (ir.table === null) return [];
  const reach = reachFilters(ir);
  return ir.joins.map((join) => {
    // The hop's start: the base table, or (multi-hop) the table joined before, as reached.
    const base = join.from_table;
    const expressionKeys = isExpression(join.left_column) || isExpression(join.right_column);
    return makeTest(ir, {
      rule: "join_referential_integrity",
      name: `every ${join.left_column} has a match in ${join.table}.${join.right_column}`,
      check: `${join.left_column} IN (SELECT ${join.right_column} FROM ${join.table})`,
      severity: "HIGH",
      confidence: "high",
      table: base,
      filter: reach.get(base) ?? null,
      // Base column first: evaluate's message names it, then the joined column; the planner
      // reads both to adapt the key types.
      columns: [...columnRefs(base, join.left_column), ...columnRefs(join.table, join.right_column)],
      // A key that is an expression has no column type to adapt to (plan/join-keys.ts): both
      // sides are compared as text, which any type converts to on 18.16 and current releases.
      probe: {
        type: "rows_where",
        violation: orphanViolation(join.left_column, join.table, join.right_column, expressionKeys ? "toString" : null),
      },
    });
  });
}
