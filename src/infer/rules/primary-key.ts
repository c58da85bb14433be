// Prevents: a duplicated base row inflating every count and sum over the table (only metrics
// that join TO the table would notice through join_key_unique), and rows without a key.
import type { MetricIR } from "../../compile/ir.js";
import { valueSql } from "../../sql/value-expr.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";
import { columnRefs } from "../value-sql.js";

export function primaryKeyUnique(ir: MetricIR): InferredTest[] {
  const table = ir.table;
  const key = ir.primary_key;
  if (table === null || key === null) return [];
  return [
    makeTest(ir, {
      rule: "primary_key_unique",
      name: `primary key ${key} is unique`,
      check: `${key} is unique in ${table}`,
      severity: "HIGH",
      confidence: "high",
      table,
      filter: ir.filter,
      columns: columnRefs(table, key),
      probe: { type: "duplicate_keys", key: valueSql(key) },
    }),
  ];
}

export function primaryKeyNotNull(ir: MetricIR): InferredTest[] {
  const table = ir.table;
  const key = ir.primary_key;
  if (table === null || key === null) return [];
  return [
    makeTest(ir, {
      rule: "primary_key_not_null",
      name: `primary key ${key} is never NULL`,
      check: `${key} IS NOT NULL`,
      severity: "HIGH",
      confidence: "high",
      table,
      filter: ir.filter,
      columns: columnRefs(table, key),
      probe: { type: "rows_where", violation: `${valueSql(key)} IS NULL` },
    }),
  ];
}
