// Standard mode: the 5M-row shop warehouse and its 60-metric catalogue. Times, over `reps`
// repetitions after one untimed warm-up that also checks that all methods find the same:
//   (a) the service's scan (executeScan on the real warehouse),
//   (b) one query per test (dbt style),
//   (c) the hand-written one-pass aggregate per table (filters folded), and, as a diagnostic,
//   (c') the hand-written aggregate per (table, filter), the service's grouping before it
//   folded filters (and still its fallback for a table whose folded query fails).
import path from "node:path";
import { loadCatalogSnapshot } from "../src/services/load-catalog.js";
import { handQueries, perTestQueries, type BenchQuery } from "./baselines.js";
import type { BenchOptions } from "./bench-args.js";
import { shopMetrics, writeCatalog } from "./bench-catalog.js";
import { SHOP_COLUMNS, shopSizes, shopStatements } from "./bench-dataset.js";
import { progress, type BenchWarehouse } from "./bench-warehouse.js";
import { checksFor, scannedTables, tableGroups, type Schema } from "./checks.js";
import { disagreements, formatMs, loadLine, median, runQueries, runService, slowest, type ServiceRun, type Timed } from "./run-methods.js";
import { DEFAULT_PARSE_OPTIONS } from "../src/catalog/parse-catalog.js";
import { DEFAULT_ANOMALY_DEFAULTS } from "../src/compile/anomaly-settings.js";

const TARGET_A_OVER_C = 1.15;
const TARGET_B_OVER_A = 5;

type Method = "a" | "b" | "c" | "c_group";
const LABELS: Record<Method, string> = {
  a: "(a) service scan (executeScan)",
  b: "(b) one query per test (dbt style)",
  c: "(c) hand-written, one pass per table",
  c_group: "(c') hand-written, one per (table, filter)",
};

export async function seedShop(bench: BenchWarehouse, db: string, rows: number): Promise<void> {
  const sizes = shopSizes(rows);
  progress(
    `creating ${db}: ${(Object.entries(sizes) as [string, number][]).map(([t, n]) => `${t} ${n.toLocaleString("en-US")}`).join(", ")} rows`,
  );
  const started = performance.now();
  for (const statement of shopStatements(db, sizes)) await bench.exec(statement);
  progress(`data ready in ${formatMs(performance.now() - started)}`);
}

/** Returns false when the methods disagree (the benchmark then fails). */
export async function runStandard(bench: BenchWarehouse, options: BenchOptions, db: string, workDir: string): Promise<boolean> {
  await seedShop(bench, db, options.rows);
  const metricsDir = path.join(workDir, "metrics");
  const written = await writeCatalog(metricsDir, shopMetrics(db));
  // The one-pass constraint scan against one query per test: anomaly series (no per-test
  // counterpart) are off here and measured by bench:scale.
  const snapshot = await loadCatalogSnapshot(metricsDir, new Date(), DEFAULT_PARSE_OPTIONS, {
    ...DEFAULT_ANOMALY_DEFAULTS,
    enabled: false,
  });
  if (snapshot.errors.length > 0) throw new Error(`bench catalogue has errors:\n${snapshot.errors.map((e) => e.message).join("\n")}`);
  const schema: Schema = Object.fromEntries(Object.entries(SHOP_COLUMNS).map(([table, columns]) => [`${db}.${table}`, columns]));
  const checks = checksFor(snapshot.tests, schema);
  const tables = new Set(snapshot.metrics.flatMap((m) => (m.table === null ? [] : [m.table, ...m.joins.map((j) => j.table)])));
  const queries: Record<Exclude<Method, "a">, BenchQuery[]> = {
    b: perTestQueries(checks),
    c: handQueries(checks, "table"),
    c_group: handQueries(checks, "group"),
  };
  progress(
    `catalogue: ${written} metrics written, ${snapshot.metrics.length} loaded, ${snapshot.tests.length} tests, ${checks.length} distinct table checks, ${tables.size} tables, ${tableGroups(checks)} (table, filter) groups`,
  );

  const run = async (method: Method): Promise<Timed> =>
    method === "a"
      ? runService(snapshot, bench.warehouse, options.concurrency)
      : runQueries(bench.warehouse, queries[method], options.concurrency, method);

  progress("warm-up run of every method (untimed), checking that they agree");
  const warm = await runService(snapshot, bench.warehouse, options.concurrency);
  const problems: string[] = [];
  for (const method of ["b", "c", "c_group"] as const)
    problems.push(...disagreements(`${method} vs a`, (await run(method)).findings, warm.findings));
  if (warm.counts.total - warm.counts.schema !== scannedTables(checks)) {
    problems.push(`service sent ${warm.counts.total - warm.counts.schema} table queries for ${scannedTables(checks)} tables`);
  }

  let lastA: ServiceRun = warm;
  const times: Record<Method, number[]> = { a: [], b: [], c: [], c_group: [] };
  const order: Method[] = ["a", "b", "c", "c_group"];
  for (let rep = 0; rep < options.reps; rep += 1) {
    // Rotated each repetition, so no method always runs right after the same other one.
    const rotated = [...order.slice(rep % order.length), ...order.slice(0, rep % order.length)];
    for (const method of rotated) {
      const timed = await run(method);
      if (method === "a") lastA = timed as ServiceRun;
      times[method].push(timed.ms);
      progress(`rep ${rep + 1}/${options.reps} ${LABELS[method]}: ${formatMs(timed.ms)} (${timed.queries} queries)`);
    }
  }

  const med = Object.fromEntries(order.map((m) => [m, median(times[m])])) as Record<Method, number>;
  const aOverC = med.a / med.c;
  const bOverA = med.b / med.a;
  const failing = warm.results.filter((r) => r.status === "failing");
  const byStatus = (status: string) => warm.statuses.filter((s) => s.status === status).length;
  const out = [
    `warehouse: ${bench.label}, ClickHouse ${await bench.version()}`,
    `data: ${(Object.entries(shopSizes(options.rows)) as [string, number][]).map(([t, n]) => `${t} ${n.toLocaleString("en-US")}`).join(", ")} rows`,
    `catalogue: ${snapshot.metrics.length} metrics over ${tables.size} tables, ${snapshot.tests.length} tests (${checks.length} distinct table checks, ${tableGroups(checks)} (table, filter) groups)`,
    `findings: ${failing.length} failing tests; metrics ${byStatus("healthy")} healthy, ${byStatus("degraded")} degraded, ${byStatus("unreliable")} unreliable`,
    loadLine(),
    `repetitions: ${options.reps} (+1 warm-up), concurrency ${options.concurrency}`,
    "",
    "method | queries | median | runs",
    ...order.map((m) => {
      const count = m === "a" ? `${warm.counts.total} (1 schema + ${warm.counts.total - warm.counts.schema})` : String(queries[m].length);
      return `${LABELS[m]} | ${count} | ${formatMs(med[m])} | ${times[m].map((ms) => (ms / 1000).toFixed(3)).join(" ")}`;
    }),
    "",
    `a/c  = ${aOverC.toFixed(2)} (target <= ${TARGET_A_OVER_C}): ${aOverC <= TARGET_A_OVER_C ? "MET" : "NOT MET"}`,
    `b/a  = ${bOverA.toFixed(2)} (target >= ${TARGET_B_OVER_A}): ${bOverA >= TARGET_B_OVER_A ? "MET" : "NOT MET"}`,
    `a/c' = ${(med.a / med.c_group).toFixed(2)} (diagnostic: service vs one query per (table, filter) written by hand)`,
    `b/c  = ${(med.b / med.c).toFixed(2)} (diagnostic: the b/a any one-pass-per-table scan could reach here)`,
    "slowest queries of (a) in its last run (wall time under concurrency):",
    ...slowest(lastA.counts.timings, 4),
    problems.length === 0
      ? "agreement: all methods found the same counts for every check"
      : `DISAGREEMENT (${problems.length}):\n  ${problems.join("\n  ")}`,
  ];
  process.stdout.write(`${out.join("\n")}\n`);
  return problems.length === 0;
}
