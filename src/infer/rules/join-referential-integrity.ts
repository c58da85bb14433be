// Prevents: base rows whose foreign key has no match, silently dropped by inner joins or grouped under empty keys by left joins.
import type { MetricIR } from "../../compile/ir.js";
import { quoteIdentifier, quoteTable } from "../../sql/identifiers.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";

export function joinReferentialIntegrity(ir: MetricIR): InferredTest[] {
  const base = ir.table;
  if (base === null) return [];
  return ir.joins.map((join) => {
    const left = quoteIdentifier(join.left_column);
    const right = quoteIdentifier(join.right_column);
    return makeTest(ir, {
      rule: "join_referential_integrity",
      name: `every ${join.left_column} has a match in ${join.table}.${join.right_column}`,
      check: `${join.left_column} IN (SELECT ${join.right_column} FROM ${join.table})`,
      severity: "HIGH",
      confidence: "high",
      table: base,
      filter: ir.filter,
      // Base column first: evaluate's message names it, then the joined column.
      columns: [
        { table: base, column: join.left_column },
        { table: join.table, column: join.right_column },
      ],
      // A NULL key is not an orphan (it has no key at all); ClickHouse drops NULLs from
      // the IN set, so NULLs on the joined side cannot turn NOT IN into "never true".
      probe: { type: "rows_where", violation: `isNotNull(${left}) AND ${left} NOT IN (SELECT ${right} FROM ${quoteTable(join.table)})` },
    });
  });
}
