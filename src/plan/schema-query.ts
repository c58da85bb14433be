// Reads the warehouse's columns once per scan, so the planner can skip tests on
// missing tables/columns instead of sending queries that fail.
import { isQualifiedTable, quoteString } from "../sql/identifiers.js";

export interface ColumnRow {
  database: string;
  table: string;
  name: string;
  type: string;
}

/**
 * SELECT over system.columns for exactly the given "database.table" names.
 * An OR-chain of equalities rather than a tuple IN: tuple IN on system tables is
 * unreliable on ClickHouse 18.16, while plain = / AND / OR work everywhere.
 * Names that are not valid database.table are left out (they then read as missing).
 */
export function schemaQuery(tables: readonly string[]): string {
  const valid = [...new Set(tables)].filter(isQualifiedTable).sort();
  const conditions = valid.map((qualified) => {
    const [database, table] = qualified.split(".") as [string, string];
    return `(database = ${quoteString(database)} AND table = ${quoteString(table)})`;
  });
  const where = conditions.length > 0 ? conditions.join(" OR ") : "0";
  return `SELECT database, table, name, type FROM system.columns WHERE ${where} ORDER BY database, table, name`;
}

/** Rows of schemaQuery -> "database.table" -> column -> type, for one datasource. */
export function schemaFromRows(rows: ColumnRow[]): Record<string, Record<string, string>> {
  const schema: Record<string, Record<string, string>> = {};
  for (const row of rows) {
    const qualified = `${String(row.database)}.${String(row.table)}`;
    const columns = (schema[qualified] ??= {});
    columns[String(row.name)] = String(row.type);
  }
  return schema;
}
