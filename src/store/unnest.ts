// Set-based writes: one INSERT ... SELECT FROM unnest($1::type[], ...) per chunk of rows, never a
// statement per row. Arrays travel as parameters, so no value is ever spliced into SQL.
import type { Sql } from "./sql-session.js";

/** Rows per statement: large enough to amortise round trips, small enough for PGlite's memory. */
const CHUNK = 5_000;

export type Cell = string | number | boolean | null;

export interface InsertSpec {
  table: string;
  /** column name -> PostgreSQL element type */
  columns: Record<string, string>;
  rows: readonly Cell[][];
  onConflict?: string;
}

const quote = (name: string) => `"${name}"`;

/** The columns of `rows`, one array per column, for unnest(). */
export function toColumnArrays(rows: readonly Cell[][], width: number): Cell[][] {
  const arrays: Cell[][] = Array.from({ length: width }, () => new Array<Cell>(rows.length));
  rows.forEach((row, r) => {
    for (let c = 0; c < width; c++) arrays[c]![r] = row[c] ?? null;
  });
  return arrays;
}

/** `unnest($1::text[], $2::bigint[]) AS t("a", "b")` with parameters from `first`. */
export function unnestFrom(columns: Record<string, string>, first = 1): string {
  const names = Object.keys(columns);
  const args = names.map((name, i) => `$${first + i}::${columns[name]}[]`).join(", ");
  return `unnest(${args}) AS t(${names.map(quote).join(", ")})`;
}

export async function insertRows(sql: Sql, spec: InsertSpec): Promise<number> {
  const names = Object.keys(spec.columns);
  const text = `INSERT INTO ${quote(spec.table)} (${names.map(quote).join(", ")}) SELECT * FROM ${unnestFrom(spec.columns)} ${spec.onConflict ?? ""}`;
  let count = 0;
  for (let start = 0; start < spec.rows.length; start += CHUNK) {
    count += (await sql(text, toColumnArrays(spec.rows.slice(start, start + CHUNK), names.length))).rowCount;
  }
  return count;
}
