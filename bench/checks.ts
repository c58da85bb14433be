// The checks the baselines run, read from the inferred tests' rule and columns (NOT from the
// planner or probe-sql): each distinct test key once, as a person would write it knowing the
// column types. Schema tests (answered from system.columns) and NaN checks on non-float
// columns (not applicable) are left out, as the service leaves them out of its table scans.
import type { InferredTest } from "../src/infer/types.js";
import { quoteIdentifier as q } from "../src/sql/identifiers.js";

/** "database.table" -> column -> ClickHouse type */
export type Schema = Record<string, Record<string, string>>;

export type Check =
  /** rows of the table (after the filter) matching `condition` */
  | { key: string; table: string; filter: string | null; kind: "rows"; condition: string; probe: string }
  /** rows of the table after the filter (table_not_empty) */
  | { key: string; table: string; filter: string | null; kind: "total" }
  /** rows whose non-NULL `column` value appeared before (join_key_unique) */
  | { key: string; table: string; filter: string | null; kind: "duplicates"; column: string; nullable: boolean }
  /** 1 when max(column) is older than maxSeconds (freshness) */
  | { key: string; table: string; filter: string | null; kind: "stale"; column: string; maxSeconds: number };

const isNullable = (type: string) => type.startsWith("Nullable(");
const isString = (type: string) => /^(Nullable\()?String\)?$/.test(type);
const isFloat = (type: string) => /Float(32|64)/.test(type);

function condition(test: InferredTest, schema: Schema): string | null {
  const ref = test.columns[0];
  if (!ref) return null;
  const type = schema[ref.table]?.[ref.column] ?? "";
  const c = q(ref.column);
  switch (test.rule) {
    case "measure_not_null":
    case "count_key_not_null":
    case "foreign_key_not_null":
    case "primary_key_not_null":
    case "dbt_not_null":
      return `${c} IS NULL`;
    case "filter_column_not_null":
      // not applicable to a column that cannot hold NULL (the planner leaves it out too)
      return isNullable(type) ? `${c} IS NULL` : null;
    case "measure_finite":
      return isFloat(type) ? `NOT isFinite(${c})` : null;
    case "measure_non_negative":
      return `${c} < 0`;
    case "dimension_not_null":
      return isString(type) ? `${c} IS NULL OR ${c} = ''` : `${c} IS NULL`;
    case "join_referential_integrity": {
      const dim = test.columns[1]!;
      // Keys of different types need a conversion on 18.16 (the planner adds one); the bench's tables avoid that.
      const base = (t: string) => t.replace(/^Nullable\((.*)\)$/, "$1");
      if (base(type) !== base(schema[dim.table]?.[dim.column] ?? "")) throw new Error(`bench: join key types differ in ${test.key}`);
      const notIn = `${c} NOT IN (SELECT ${q(dim.column)} FROM ${dim.table
        .split(".")
        .map((p) => q(p))
        .join(".")})`;
      return isNullable(type) ? `${c} IS NOT NULL AND ${notIn}` : notIn;
    }
    case "timestamp_not_future":
      return `${c} > now() + 300`;
    default:
      throw new Error(`bench: no hand-written check for rule ${test.rule}`);
  }
}

export function checksFor(tests: InferredTest[], schema: Schema): Check[] {
  const checks = new Map<string, Check>();
  for (const test of tests) {
    if (checks.has(test.key) || test.probe.type === "schema") continue;
    const base = { key: test.key, table: test.table, filter: test.filter };
    const ref = test.columns[0];
    switch (test.probe.type) {
      case "not_empty":
        checks.set(test.key, { ...base, kind: "total" });
        break;
      case "duplicate_keys":
        checks.set(test.key, {
          ...base,
          kind: "duplicates",
          column: ref!.column,
          nullable: isNullable(schema[ref!.table]?.[ref!.column] ?? ""),
        });
        break;
      case "staleness":
        checks.set(test.key, { ...base, kind: "stale", column: ref!.column, maxSeconds: test.probe.maxSeconds });
        break;
      case "rows_where": {
        const hand = condition(test, schema);
        if (hand !== null) checks.set(test.key, { ...base, kind: "rows", condition: hand, probe: test.probe.violation });
        break;
      }
    }
  }
  return [...checks.values()];
}

/** Distinct (table, filter) pairs among the checks: the service's grouping before filters were folded. */
export function tableGroups(checks: Check[]): number {
  return new Set(checks.map((check) => JSON.stringify([check.table, check.filter]))).size;
}

/** Distinct tables among the checks: the number of table queries the service should send. */
export function scannedTables(checks: Check[]): number {
  return new Set(checks.map((check) => check.table)).size;
}
