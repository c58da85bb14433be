// Wide mode: 1,000 metrics over 100 tables. Counts the warehouse queries of the service's
// scan by wrapping the real warehouse's query(): the table queries must equal the number of
// tables among the runnable tests, the filters being folded (plus one system.columns read).
import path from "node:path";
import { loadCatalogSnapshot } from "../src/services/load-catalog.js";
import { quoteIdentifier } from "../src/sql/identifiers.js";
import type { BenchOptions } from "./bench-args.js";
import { writeCatalog, type MeasureSpec, type MetricSpec } from "./bench-catalog.js";
import { createTable, DEFECTS } from "./bench-dataset.js";
import { progress, type BenchWarehouse } from "./bench-warehouse.js";
import { checksFor, scannedTables, tableGroups, type Schema } from "./checks.js";
import { perTestQueries } from "./baselines.js";
import { disagreements, formatMs, loadLine, median, runQueries, runService } from "./run-methods.js";
import { DEFAULT_PARSE_OPTIONS } from "../src/catalog/parse-catalog.js";
import { DEFAULT_ANOMALY_DEFAULTS } from "../src/compile/anomaly-settings.js";

const COLUMNS: Record<string, string> = {
  id: "UInt64",
  parent_id: "UInt64",
  kind: "String",
  label: "String",
  amount: "Nullable(Float64)",
  qty: "UInt32",
  price: "Float64",
  score: "Float32",
  ts: "DateTime",
};

export const MEASURES: MeasureSpec[] = [
  { alias: "amount_sum", function: "Sum", column: "amount" },
  { alias: "price_avg", function: "Avg", column: "price" },
  { alias: "score_max", function: "Max", column: "score" },
  { alias: "qty_sum", function: "Sum", column: "qty" },
  { alias: "rows", function: "Count" },
  { alias: "parents", function: "CountDistinct", column: "parent_id" },
  { alias: "price_min", function: "Min", column: "price" },
  { alias: "price_sum", function: "Sum", column: "price" },
  { alias: "amount_avg", function: "Avg", column: "amount" },
  { alias: "qty_max", function: "Max", column: "qty" },
];
/** 3 filters per table: 3 groups per table. */
const FILTERS = [undefined, "kind = 'a'", "qty > 2"];

export const tableName = (i: number) => `t${String(i).padStart(3, "0")}`;

/** Days of history the wide tables span: the anomaly rules' 12 weeks of training and a few days. */
export const HISTORY_DAYS = 90;
const DAY = 86_400;

/**
 * Each table is a daily snapshot load: its rows are spread over the last HISTORY_DAYS UTC days, all
 * of a day's rows stamped with that day's midnight (today's included, so the newest row is at most
 * a day old). The anomaly rules then score full series, and the loading cadence (one load a day)
 * does not go stale while the benchmark runs, as a frozen per-second stream would.
 */
export function wideStatements(db: string, tables: number, rows: number): string[] {
  const k = Math.max(1, Math.floor(rows / DEFECTS));
  const perDay = Math.max(1, Math.ceil(rows / HISTORY_DAYS));
  const statements = [`DROP DATABASE IF EXISTS ${quoteIdentifier(db)}`, `CREATE DATABASE ${quoteIdentifier(db)}`];
  for (let i = 0; i < tables; i += 1) {
    const t = `${quoteIdentifier(db)}.${quoteIdentifier(tableName(i))}`;
    statements.push(createTable(db, tableName(i), COLUMNS));
    // Defects in every table: NULL amounts, parent ids with no parent row, negative prices.
    statements.push(`INSERT INTO ${t} SELECT number + 1, if((number + 3) % ${k} = 0, ${rows + 100}, number % ${rows} + 1),
      ['a', 'b', 'c'][number % 3 + 1], concat('l', toString(number % 50)),
      if((number + 1) % ${k} = 0, CAST(NULL AS Nullable(Float64)), CAST(toFloat64(number % 1000) / 10 AS Nullable(Float64))),
      toUInt32(number % 5), if((number + 2) % ${k} = 0, -1, 1) * toFloat64(number % 300), toFloat32(number % 97),
      toDateTime(intDiv(toUInt32(now()), ${DAY}) * ${DAY} - intDiv(number, ${perDay}) * ${DAY})
      FROM numbers(${rows})`);
  }
  return statements;
}

export function wideMetrics(db: string, tables: number, metrics: number): Record<string, MetricSpec[]> {
  const files: Record<string, MetricSpec[]> = {};
  const perTable = Math.ceil(metrics / tables);
  for (let n = 0; n < metrics; n += 1) {
    const i = Math.floor(n / perTable) % tables;
    const j = n % perTable;
    const table = `${db}.${tableName(i)}`;
    const filter = FILTERS[j < 6 ? 0 : j < 8 ? 1 : 2];
    const joined = j % 5 === 2 ? `${db}.${tableName((i + 1) % tables)}` : null;
    const metric: MetricSpec = {
      name: `${tableName(i)}_m${j}`,
      table,
      ...(filter ? { filter } : {}),
      timestamp: "ts",
      ...(j % 2 === 0 ? { freshness: "1d" } : {}),
      measures: [MEASURES[j % MEASURES.length]!],
      dimensions: joined ? [{ name: "parent_label", column: "label", table: joined }] : [{ name: "kind", column: "kind" }],
      ...(joined ? { joins: [{ table: joined, on: { column: "parent_id", references: "id" } }] } : {}),
    };
    (files[`${tableName(i)}.yaml`] ??= []).push(metric);
  }
  return files;
}

export async function runWide(bench: BenchWarehouse, options: BenchOptions, db: string, workDir: string): Promise<boolean> {
  progress(`creating ${db}: ${options.tables} tables x ${options.tableRows.toLocaleString("en-US")} rows`);
  let started = performance.now();
  for (const statement of wideStatements(db, options.tables, options.tableRows)) await bench.exec(statement);
  progress(`data ready in ${formatMs(performance.now() - started)}`);

  const metricsDir = path.join(workDir, "metrics");
  started = performance.now();
  await writeCatalog(metricsDir, wideMetrics(db, options.tables, options.metrics));
  // The one-pass constraint scan against one query per test: anomaly series (no per-test
  // counterpart) are off here and measured by bench:scale.
  const snapshot = await loadCatalogSnapshot(metricsDir, new Date(), DEFAULT_PARSE_OPTIONS, {
    ...DEFAULT_ANOMALY_DEFAULTS,
    enabled: false,
  });
  const loadMs = performance.now() - started;
  if (snapshot.errors.length > 0) throw new Error(`bench catalogue has errors:\n${snapshot.errors.map((e) => e.message).join("\n")}`);
  const schema: Schema = {};
  for (let i = 0; i < options.tables; i += 1) schema[`${db}.${tableName(i)}`] = COLUMNS;
  const checks = checksFor(snapshot.tests, schema);
  const groups = tableGroups(checks);
  const scanned = scannedTables(checks);
  const tables = new Set(snapshot.metrics.map((m) => m.table)).size;
  progress(
    `catalogue: ${snapshot.metrics.length} metrics over ${tables} tables, ${snapshot.tests.length} tests, ${checks.length} distinct table checks, ${groups} (table, filter) groups in ${scanned} tables (loaded in ${formatMs(loadMs)})`,
  );

  const problems: string[] = [];
  const times: number[] = [];
  const perTest = perTestQueries(checks);
  const perTestTimes: number[] = [];
  const runs = [];
  for (let rep = 0; rep <= options.reps; rep += 1) {
    const run = await runService(snapshot, bench.warehouse, options.concurrency);
    const tableQueries = run.counts.total - run.counts.schema;
    if (tableQueries !== scanned) problems.push(`run ${rep}: ${tableQueries} table queries for ${scanned} tables`);
    if (run.counts.schema !== 1) problems.push(`run ${rep}: ${run.counts.schema} schema queries, expected 1`);
    if (rep > 0) times.push(run.ms); // run 0 is the warm-up
    runs.push(run);
    progress(
      `${rep === 0 ? "warm-up" : `rep ${rep}/${options.reps}`}: ${formatMs(run.ms)}, ${run.counts.total} warehouse queries (${tableQueries} table + ${run.counts.schema} schema)`,
    );
    // For scale: the same checks as one query each (dbt style), also untimed on the warm-up.
    const baseline = await runQueries(bench.warehouse, perTest, options.concurrency, "wide-b");
    if (rep > 0) perTestTimes.push(baseline.ms);
    else problems.push(...disagreements("one query per test vs scan", baseline.findings, run.findings));
    progress(
      `${rep === 0 ? "warm-up" : `rep ${rep}/${options.reps}`} one query per test: ${formatMs(baseline.ms)}, ${perTest.length} queries`,
    );
  }
  const last = runs[runs.length - 1]!;
  const failing = last.results.filter((r) => r.status === "failing").length;
  const out = [
    `warehouse: ${bench.label}, ClickHouse ${await bench.version()}`,
    `wide mode: ${snapshot.metrics.length} metrics over ${tables} tables of ${options.tableRows.toLocaleString("en-US")} rows; catalogue loaded (parse, compile, infer) in ${formatMs(loadMs)}`,
    `tests: ${snapshot.tests.length} inferred, ${checks.length} distinct table checks (= queries one-query-per-test would send), ${failing} failing results`,
    `tables scanned: ${scanned} (${groups} (datasource, table, filter) groups, folded into one query per table)`,
    `warehouse queries per scan: ${last.counts.total} = ${last.counts.total - last.counts.schema} table queries + ${last.counts.schema} schema query`,
    `assert table queries == tables on every run, and same findings as one query per test: ${problems.length === 0 ? "OK" : `FAILED\n  ${problems.join("\n  ")}`}`,
    loadLine(),
    `scan time: median ${formatMs(median(times))} over ${options.reps} runs (${times.map((ms) => (ms / 1000).toFixed(3)).join(" ")}), concurrency ${options.concurrency}`,
    `for scale, one query per test (dbt style): ${perTest.length} queries, median ${formatMs(median(perTestTimes))}; ratio ${(median(perTestTimes) / median(times)).toFixed(2)}`,
  ];
  process.stdout.write(`${out.join("\n")}\n`);
  return problems.length === 0;
}
