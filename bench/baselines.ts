// SQL of the two baselines the service is measured against:
// (b) one query per test, as dbt runs its tests (each test its own SELECT over the table);
// (c) the bare one-pass aggregate per table written by hand: `SELECT count(), countIf(...), ...`
//     with each check once, filters folded into the aggregates (-If combinators), so every
//     table is read once. The "group" variant keeps one query per (table, filter) (the
//     service's grouping before it folded filters), and shows what folding is worth.
import { quoteIdentifier as q } from "../src/sql/identifiers.js";
import type { Row } from "../src/warehouse/warehouse.js";
import type { Check } from "./checks.js";

/** key -> finding: violating rows, rows (table_not_empty) or 1/0 (stale) */
export type Findings = Map<string, number>;

export interface BenchQuery {
  id: string;
  sql: string;
  read(row: Row, findings: Findings): void;
}

const quoteTable = (table: string) =>
  table
    .split(".")
    .map((p) => q(p))
    .join(".");
const num = (value: unknown): number => Number(value ?? Number.NaN);
const unix = (expression: string) => `toUInt64(toUnixTimestamp(${expression}))`;
const where = (...conditions: (string | null)[]) => {
  const parts = conditions.filter((c): c is string => c !== null).map((c) => `(${c})`);
  return parts.length === 0 ? "" : ` WHERE ${parts.join(" AND ")}`;
};

/** (b): one SELECT per check, each reading the table on its own. */
export function perTestQueries(checks: Check[]): BenchQuery[] {
  return checks.map((check, i): BenchQuery => {
    const from = ` FROM ${quoteTable(check.table)}`;
    const id = `t${i + 1}`;
    switch (check.kind) {
      case "rows":
        return {
          id,
          sql: `SELECT count() AS v${from}${where(check.filter, check.probe)}`,
          read: (row, f) => void f.set(check.key, num(row.v)),
        };
      case "total":
        return { id, sql: `SELECT count() AS v${from}${where(check.filter)}`, read: (row, f) => void f.set(check.key, num(row.v)) };
      case "duplicates": {
        // dbt's `unique` test: keys seen more than once (here: the extra rows they add).
        const key = q(check.column);
        const inner = `SELECT count() AS n${from}${where(check.filter, `${key} IS NOT NULL`)} GROUP BY ${key} HAVING count() > 1`;
        return { id, sql: `SELECT sum(n - 1) AS v FROM (${inner})`, read: (row, f) => void f.set(check.key, num(row.v)) };
      }
      case "stale": {
        // dbt's source freshness: max(loaded_at) against the warehouse clock.
        const sql = `SELECT ${unix(`max(${q(check.column)})`)} AS newest, ${unix("now()")} AS checked${from}${where(check.filter)}`;
        return { id, sql, read: (row, f) => void f.set(check.key, num(row.checked) - num(row.newest) > check.maxSeconds ? 1 : 0) };
      }
    }
  });
}

/** Builds one hand-written aggregate: each distinct expression once. */
class Aggregate {
  private readonly aliases = new Map<string, string>();
  private readonly readers: ((row: Row, findings: Findings) => void)[] = [];

  constructor(
    readonly table: string,
    readonly filter: string | null,
  ) {}

  column(expression: string): string {
    let alias = this.aliases.get(expression);
    if (alias === undefined) {
      alias = `a${this.aliases.size}`;
      this.aliases.set(expression, alias);
    }
    return alias;
  }

  /** `filter` is the check's own filter when folded, null when it is the query's WHERE. */
  add(check: Check, filter: string | null): void {
    const ifFilter = (condition: string) => (filter === null ? condition : `(${filter}) AND (${condition})`);
    const total = this.column(filter === null ? "count()" : `countIf(${filter})`);
    switch (check.kind) {
      case "total":
        this.readers.push((row, f) => void f.set(check.key, num(row[total])));
        break;
      case "rows": {
        const alias = this.column(`countIf(${ifFilter(check.condition)})`);
        this.readers.push((row, f) => void f.set(check.key, num(row[alias])));
        break;
      }
      case "duplicates": {
        const key = q(check.column);
        const present = check.nullable || filter !== null ? this.column(`countIf(${ifFilter(`${key} IS NOT NULL`)})`) : total;
        const distinct = this.column(filter === null ? `uniqExact(${key})` : `uniqExactIf(${key}, ${filter})`);
        this.readers.push((row, f) => void f.set(check.key, num(row[present]) - num(row[distinct])));
        break;
      }
      case "stale": {
        const newest = this.column(unix(filter === null ? `max(${q(check.column)})` : `maxIf(${q(check.column)}, ${filter})`));
        const now = this.column(unix("now()"));
        this.readers.push((row, f) => void f.set(check.key, num(row[now]) - num(row[newest]) > check.maxSeconds ? 1 : 0));
        break;
      }
    }
  }

  query(id: string): BenchQuery {
    const columns = [...this.aliases].map(([expression, alias]) => `${expression} AS ${alias}`).join(", ");
    const readers = [...this.readers];
    return {
      id,
      sql: `SELECT ${columns} FROM ${quoteTable(this.table)}${where(this.filter)}`,
      read: (row, findings) => readers.forEach((read) => read(row, findings)),
    };
  }
}

/** (c): one aggregate per table ("table", filters folded) or per (table, filter) ("group"). */
export function handQueries(checks: Check[], mode: "table" | "group"): BenchQuery[] {
  const aggregates = new Map<string, Aggregate>();
  for (const check of checks) {
    const id = mode === "table" ? check.table : JSON.stringify([check.table, check.filter]);
    let aggregate = aggregates.get(id);
    if (!aggregate) {
      aggregate = new Aggregate(check.table, mode === "table" ? null : check.filter);
      aggregates.set(id, aggregate);
    }
    aggregate.add(check, mode === "table" ? check.filter : null);
  }
  return [...aggregates.values()].map((aggregate, i) => aggregate.query(`h${i + 1}`));
}
