// Runs one measured method and returns its time and what it found, so that the methods can
// be checked to agree before their times are compared.
import os from "node:os";
import pLimit from "p-limit";
import type { MetricStatus } from "../src/derive/types.js";
import { judgeAll } from "../src/evaluate/evaluate.js";
import type { TestResult } from "../src/evaluate/types.js";
import { executeScan } from "../src/scan/execute-scan.js";
import type { CatalogSnapshot } from "../src/infer/catalog-snapshot.js";
import type { Warehouse } from "../src/warehouse/warehouse.js";
import type { BenchQuery, Findings } from "./baselines.js";
import { countingWarehouse, type QueryCounts } from "./bench-warehouse.js";

/** ClickHouse's default max_query_size, as the service's MAX_QUERY_SIZE default. */
export const MAX_QUERY_SIZE = 262_144;

export interface Timed {
  ms: number;
  findings: Findings;
  queries: number;
}

export interface ServiceRun extends Timed {
  counts: QueryCounts;
  results: TestResult[];
  statuses: MetricStatus[];
}

let runNumber = 0;

/** (a): the service's scan path, executeScan, on the real warehouse (query() counted). */
export async function runService(snapshot: CatalogSnapshot, inner: Warehouse, concurrency: number): Promise<ServiceRun> {
  const { warehouse, counts } = countingWarehouse(inner);
  runNumber += 1;
  const started = performance.now();
  const outcome = await executeScan(snapshot, new Map([[warehouse.name, warehouse]]), {
    scanId: `bench-scan-${process.pid}-${runNumber}`,
    concurrency,
    maxQuerySize: MAX_QUERY_SIZE,
    signal: new AbortController().signal,
  });
  const ms = performance.now() - started;
  // One result per test, in the snapshot's order.
  const results = judgeAll(snapshot.tests, outcome.observations, outcome.blocked);
  const findings: Findings = new Map();
  snapshot.tests.forEach((test, i) => {
    const result = results[i]!;
    // Schema tests and non-applicable ones (NaN check on a non-float) are not table scans.
    if (test.probe.type === "schema" || result.message.startsWith("not applicable")) return;
    if (result.message.startsWith("not evaluated")) return; // shows up as a disagreement
    findings.set(test.key, test.probe.type === "not_empty" ? result.rows_total : result.rows_affected);
  });
  return { ms, findings, queries: counts.total, counts, results, statuses: outcome.statuses };
}

/** (b) and (c): the given queries, at most `concurrency` at a time, as the service runs its own. */
export async function runQueries(warehouse: Warehouse, queries: BenchQuery[], concurrency: number, tag: string): Promise<Timed> {
  const limit = pLimit(concurrency);
  const findings: Findings = new Map();
  runNumber += 1;
  const started = performance.now();
  await Promise.all(
    queries.map((query) =>
      limit(async () => {
        const rows = await warehouse.query(query.sql, { queryId: `bench-${tag}-${process.pid}-${runNumber}-${query.id}` });
        if (!rows[0]) throw new Error(`bench: query ${query.id} returned no row: ${query.sql}`);
        query.read(rows[0], findings);
      }),
    ),
  );
  return { ms: performance.now() - started, findings, queries: queries.length };
}

/** Differences between what two methods found, as readable lines (empty when they agree). */
export function disagreements(label: string, expected: Findings, actual: Findings): string[] {
  const lines: string[] = [];
  for (const [key, value] of expected) {
    const other = actual.get(key);
    if (other !== value) lines.push(`${label}: ${key}: expected ${value}, got ${other ?? "nothing"}`);
  }
  for (const key of actual.keys()) if (!expected.has(key)) lines.push(`${label}: ${key}: not expected`);
  return lines;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const formatMs = (ms: number) => `${(ms / 1000).toFixed(3)} s`;

/** "1.234 s  `db`.`t` WHERE (...): 18 columns" for the n slowest queries. */
export function slowest(timings: { sql: string; ms: number }[], n: number): string[] {
  return [...timings]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, n)
    .map(({ sql, ms }) => {
      // The planned query's own FROM comes last (subqueries of NOT IN come before it).
      const from = sql.slice(sql.lastIndexOf(" FROM ") + 6);
      const columns = sql.split(" AS ").length - 1;
      return `  ${formatMs(ms)}  ${from.length > 90 ? `${from.slice(0, 87)}...` : from}: ${columns} result columns`;
    });
}

const startLoad = os.loadavg()[0]!;

/** Other work on the machine skews every figure: the report states the load around the run. */
export function loadLine(): string {
  return `machine: ${os.availableParallelism()} CPUs, 1-min load average ${startLoad.toFixed(2)} at start, ${os.loadavg()[0]!.toFixed(2)} at end`;
}
