// The dbt project's own column tests (not_null, unique, relationships, accepted_values), run
// in the same one pass per table as tests of every metric that reads the table. Each reads
// the rows the metric reaches (accepted_values: every row the join reaches, as a filter on
// the column would hide the unexpected values). dbt `severity: warn` becomes LOW (never fails).
import type { MetricIR } from "../../compile/ir.js";
import type { DeclaredTest } from "../../catalog/types.js";
import { quoteIdentifier, quoteString } from "../../sql/identifiers.js";
import { makeTest, type TestSpec } from "../make-test.js";
import type { InferredTest } from "../types.js";
import { reachFilters } from "../value-sql.js";
import { notAcceptedViolation } from "./dimension-accepted-values.js";
import { orphanViolation } from "./join-referential-integrity.js";

function spec(test: DeclaredTest, filter: string | null): Omit<TestSpec, "severity" | "confidence" | "table"> {
  const { column, table } = test;
  const quoted = quoteIdentifier(column);
  const ref = { table, column };
  switch (test.kind) {
    case "not_null":
      return {
        rule: "dbt_not_null",
        name: `dbt not_null: ${column}`,
        check: `${column} IS NOT NULL`,
        filter,
        columns: [ref],
        probe: { type: "rows_where", violation: `${quoted} IS NULL` },
      };
    case "unique":
      return {
        rule: "dbt_unique",
        name: `dbt unique: ${column}`,
        check: `${column} is unique in ${table}`,
        filter,
        columns: [ref],
        probe: { type: "duplicate_keys", key: quoted },
      };
    case "relationships": {
      const to = test.to!;
      return {
        rule: "dbt_relationships",
        name: `dbt relationships: ${column} -> ${to.table}.${to.column}`,
        check: `${column} IN (SELECT ${to.column} FROM ${to.table})`,
        filter,
        columns: [ref, { table: to.table, column: to.column }],
        // NULLs skipped, as dbt does; toString compares keys of any two types on 18.16 too.
        probe: { type: "rows_where", violation: orphanViolation(column, to.table, to.column, "toString") },
      };
    }
    case "accepted_values": {
      const values = test.values!;
      return {
        rule: "dbt_accepted_values",
        name: `dbt accepted_values: ${column}`,
        check: `${column} IN (${values.map(quoteString).join(", ")})`,
        filter,
        columns: [ref],
        probe: { type: "rows_where", violation: notAcceptedViolation(quoted, values) },
      };
    }
  }
}

export function dbtDeclared(ir: MetricIR): InferredTest[] {
  if (ir.table === null || ir.declared_tests.length === 0) return [];
  const reach = reachFilters(ir);
  const unfiltered = reachFilters(ir, null);
  return ir.declared_tests.flatMap((test) => {
    const filters = test.kind === "accepted_values" ? unfiltered : reach;
    if (!filters.has(test.table)) return [];
    return [
      makeTest(ir, {
        ...spec(test, filters.get(test.table) ?? null),
        table: test.table,
        severity: test.severity === "warn" ? "LOW" : "HIGH",
        confidence: "high",
      }),
    ];
  });
}
