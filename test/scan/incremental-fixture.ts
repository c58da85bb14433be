// The incremental-scan fixture: MergeTree tables joined to each other (orders -> customers, with
// semi-joins back from customers to orders), a table whose freshness can go stale, a view and a
// Memory table (no parts: always read) and a table under a filter that reads the clock.
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { tablesInSql, tokenize } from "../../src/plan/sql-tables.js";
import type { SentQuery } from "../correctness/run-scan.js";
import { loadYaml } from "../correctness/fixture-catalog.js";

export const FRESHNESS_SECONDS = 20;

export function incrementalStatements(db: string): string[] {
  return [
    `CREATE DATABASE IF NOT EXISTS ${db}`,
    `CREATE TABLE ${db}.orders (id UInt64, customer_id UInt64, amount Nullable(Float64), created_at DateTime) ENGINE = MergeTree() ORDER BY id`,
    // NULL amounts on 7 rows, customers 21..22 missing (orphans)
    `INSERT INTO ${db}.orders SELECT number + 1, number % 22 + 1, if(number % 15 = 0, NULL, toFloat64(number)),
       now() - number * 60 FROM numbers(100)`,
    `CREATE TABLE ${db}.customers (id UInt64, segment Nullable(String)) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${db}.customers SELECT number + 1, if(number = 3, NULL, 'retail') FROM numbers(20)`,
    `CREATE TABLE ${db}.products (id UInt64, price Float64, updated_at DateTime) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${db}.products SELECT number + 1, toFloat64(number) + 0.5, now() - 3600 FROM numbers(10)`,
    // filled by the freshness test
    `CREATE TABLE ${db}.pings (id UInt64, ts DateTime) ENGINE = MergeTree() ORDER BY id`,
    `CREATE TABLE ${db}.visits (id UInt64, seen_at DateTime, pages Nullable(UInt32)) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${db}.visits SELECT number + 1, now() - number * 3600, if(number = 2, NULL, toUInt32(3)) FROM numbers(48)`,
    `CREATE VIEW ${db}.orders_view AS SELECT id, amount FROM ${db}.orders`,
    `CREATE TABLE ${db}.memo (id UInt64, x Nullable(Float64)) ENGINE = Memory`,
    `INSERT INTO ${db}.memo VALUES (1, 1.5), (2, NULL)`,
  ];
}

export function incrementalCatalog(db: string): Promise<CatalogSnapshot> {
  return loadYaml({
    "metrics.yaml": `metrics:
  - name: revenue
    table: ${db}.orders
    timestamp: created_at
    measures:
      - { alias: revenue, function: Sum, column: amount }
    dimensions:
      - { name: segment, column: segment, table: ${db}.customers }
    joins:
      - { table: ${db}.customers, type: left, on: { column: customer_id, references: id } }
  - name: product_prices
    table: ${db}.products
    timestamp: updated_at
    measures:
      - { alias: price, function: Sum, column: price }
  - name: pings_fresh
    table: ${db}.pings
    timestamp: ts
    freshness: ${FRESHNESS_SECONDS}s
    measures:
      - { alias: pings, function: Count }
  - name: recent_pages
    table: ${db}.visits
    filter: "seen_at > now() - 86400"
    measures:
      - { alias: pages, function: Sum, column: pages }
  - name: view_revenue
    table: ${db}.orders_view
    measures:
      - { alias: revenue, function: Sum, column: amount }
  - name: memo_total
    table: ${db}.memo
    measures:
      - { alias: x, function: Sum, column: x }
`,
  });
}

/** A planned table query (not the schema, SQL-parse or fingerprint reads): `SELECT count() AS total, ...`. */
export const isTableQuery = (sql: string): boolean => sql.startsWith("SELECT count() AS total");

/** Every table a query's text reads (its FROM and its subqueries), without the database. */
export function tablesOf(sql: string, db: string): string[] {
  return tablesInSql(sql)
    .tables.filter((t) => t.startsWith(`${db}.`))
    .map((t) => t.slice(db.length + 1));
}

/** The table after the outermost FROM. */
export function baseTable(sql: string): string {
  const tokens = tokenize(sql);
  let depth = 0;
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    if (token.text === "(") depth += 1;
    else if (token.text === ")") depth -= 1;
    else if (depth === 0 && token.kind === "word" && token.text.toUpperCase() === "FROM") return tokens[i + 3]!.text;
  }
  throw new Error(`no FROM in ${sql.slice(0, 200)}`);
}

export interface TableRead {
  /** the query's base table (without the database) */
  table: string;
  /** every table of the fixture database its text reads */
  reads: string[];
  sql: string;
}

/** The table queries of one scan, as sent. */
export function scanReads(sent: readonly SentQuery[], scanId: string, db: string): TableRead[] {
  return sent
    .filter((q) => q.options.queryId.startsWith(`${scanId}-`) && isTableQuery(q.sql))
    .map((q) => ({ table: baseTable(q.sql), reads: tablesOf(q.sql, db), sql: q.sql }));
}
