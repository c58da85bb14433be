// One pass over the warehouse for a catalogue snapshot:
// schema (system.columns) -> plan -> one query per table (bisected when ClickHouse refuses it,
// see isolate-failures.ts) -> observe each distinct check -> judge and derive per metric.
// Only what truly cannot be evaluated becomes a finding; an outage fails the whole scan.
import { setImmediate as yieldToLoop } from "node:timers/promises";
import pLimit from "p-limit";
import type { MetricStatus, TestCounts } from "../derive/types.js";
import { createObserver, observeInto } from "../evaluate/evaluate.js";
import type { CheckObservation, QueryOutcome } from "../evaluate/types.js";
import { forEachSlice } from "../event-loop/chunked.js";
import type { InferredTest } from "../infer/types.js";
import { withIsolation } from "../plan/isolate-plan.js";
import { byScannedTable, mergePlans, planScan } from "../plan/plan-scan.js";
import { schemaFromRows, schemaQuery } from "../plan/schema-query.js";
import type { CheckPass } from "../evaluate/check-pass.js";
import type { ScanPlan, TableQuery, WarehouseSchema } from "../plan/types.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import { WarehouseError } from "../warehouse/warehouse-error.js";
import type { Warehouse } from "../warehouse/warehouse.js";
import { readAnomaliesFor, type AnomalyScanInput, type AnomalyScanOutcome } from "./anomaly-scan.js";
import { blockedMetrics } from "../infer/blocked-metrics.js";
import { checkCatalogSql } from "./check-sql.js";
import { caseFindings } from "./case-findings.js";
import { NO_FINDINGS, type CatalogFindings } from "../infer/catalog-findings.js";
import { startIncremental, type IncrementalInput, type IncrementalSummary } from "./incremental.js";
import { isolateFailures, type Answer, type Isolation, type Send } from "./isolate-failures.js";
import { judgeMetrics, type Judgement } from "./judge-metrics.js";
import { testsToRun } from "./scan-tests.js";

export interface ExecuteOptions {
  scanId: string;
  concurrency: number;
  maxQuerySize: number;
  signal: AbortSignal;
  /** called with each warehouse query's duration, for the Prometheus histogram */
  onQuery?: (seconds: number) => void;
  /** anomaly rules: the feedback on their buckets, and the reuse of unchanged tables' series */
  anomalies?: AnomalyScanInput;
  /** set: checks on tables unchanged since the previous pass keep its results (scan/incremental.ts) */
  incremental?: IncrementalInput;
  /** what earlier checks found (fragments already asked are not asked again); default: nothing */
  findings?: CatalogFindings;
  /** the last scan's judgement: metrics whose checks judge the same keep its statuses (judge-metrics.ts) */
  lastJudgement?: Judgement | null;
}

export interface ScanOutcome {
  /** one per distinct check */
  observations: Map<string, CheckObservation>;
  statuses: MetricStatus[];
  /** over every (metric, test) */
  summary: TestCounts;
  /** the statuses, counts and failing tests' problems, with what they were judged on (the next scan's basis) */
  judgement: Judgement;
  /** metric -> why it cannot run (its SQL does not parse): all its tests are "not evaluated" */
  blocked: Map<string, string>;
  /** what this scan found about the catalogue (SQL errors, letter case), for the reads */
  findings: CatalogFindings;
  /** seconds spent waiting for the warehouse (series included: `series` of them), and evaluating its answers */
  timings: { warehouse: number; evaluate: number; series: number };
  /** queries sent to isolate the checks of refused table queries (bisection) */
  isolationQueries: number;
  /** anomaly rules: the series read, the buckets flagged */
  anomalies: AnomalyScanOutcome;
  /** incremental scans: what the store keeps beside each result (null: forget), the checks kept as they were, and the counts */
  passes?: Map<string, CheckPass | null>;
  unchanged?: Set<string>;
  incremental?: IncrementalSummary;
}

/** The warehouse did not answer (connection lost, timeout, server down): the scan fails and statuses keep their last value. */
export class WarehouseUnavailableError extends Error {
  override name = "WarehouseUnavailableError";
}

/**
 * The tables each datasource's tests read, sorted: once per snapshot (a walk over 100,000+ tests
 * was a tenth of an unchanged scan's time).
 */
const tablesOfSnapshot = new WeakMap<CatalogSnapshot, Map<string, string[]>>();
function tablesByDatasource(snapshot: CatalogSnapshot): Map<string, string[]> {
  const kept = tablesOfSnapshot.get(snapshot);
  if (kept) return kept;
  const sets = new Map<string, Set<string>>();
  for (const t of snapshot.tests) {
    let set = sets.get(t.datasource);
    if (!set) sets.set(t.datasource, (set = new Set()));
    set.add(t.table);
    for (const c of t.columns) set.add(c.table);
  }
  const tables = new Map([...sets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([ds, set]) => [ds, [...set].sort()]));
  tablesOfSnapshot.set(snapshot, tables);
  return tables;
}

async function readSchema(warehouse: Warehouse, tables: readonly string[], options: ExecuteOptions): Promise<WarehouseSchema[string]> {
  if (tables.length === 0) return {};
  try {
    const rows = await warehouse.query(schemaQuery(tables), {
      queryId: `${options.scanId}-schema-${warehouse.name}`,
      signal: options.signal,
    });
    return schemaFromRows(rows as { database: string; table: string; name: string; type: string }[]);
  } catch (error) {
    throw new WarehouseUnavailableError(`warehouse "${warehouse.name}" unavailable: ${(error as Error).message}`, { cause: error });
  }
}

/** An answer, or a refusal that is a finding (ClickHouse ran the query and rejected it). Anything else throws. */
async function runQuery(
  query: TableQuery,
  warehouses: ReadonlyMap<string, Warehouse>,
  options: ExecuteOptions,
  signal: AbortSignal,
): Promise<Answer> {
  const warehouse = warehouses.get(query.datasource);
  if (!warehouse)
    return { outcome: { query_id: query.id, row: null, error: `datasource "${query.datasource}" is not configured` }, refusal: null };
  const started = performance.now();
  try {
    const rows = await warehouse.query(query.sql, { queryId: `${options.scanId}-${query.id}`, signal });
    const row = (rows[0] ?? null) as QueryOutcome["row"];
    return { outcome: { query_id: query.id, row, error: row ? null : "query returned no row" }, refusal: null };
  } catch (error) {
    if (error instanceof WarehouseError && (error.kind === "query" || error.kind === "rejected")) {
      const refusal = { code: error.clickhouseCode, detail: error.detail };
      return { outcome: { query_id: query.id, row: null, error: error.message }, refusal };
    }
    // A lost connection, a timeout or a cancel is never a finding about the data.
    if (options.signal.aborted) throw new Error("scan cancelled", { cause: error });
    throw new WarehouseUnavailableError(`warehouse "${query.datasource}" did not answer: ${(error as Error).message}`, { cause: error });
  } finally {
    options.onQuery?.((performance.now() - started) / 1000);
  }
}

/** planScan, one table at a time with a yield between: the same plan, without a long stall. */
async function planInSlices(tests: readonly InferredTest[], schema: WarehouseSchema, maxQuerySize: number): Promise<ScanPlan> {
  const plans: ScanPlan[] = [];
  for (const group of byScannedTable(tests)) {
    plans.push(planScan(group, schema, { maxQuerySize }));
    await yieldToLoop();
  }
  return mergePlans(plans);
}

/** Runs the plan's queries; a refused one is bisected until the checks that throw are isolated. */
async function runPlan(plan: ScanPlan, schema: WarehouseSchema, warehouses: ReadonlyMap<string, Warehouse>, options: ExecuteOptions) {
  // The first outage stops the queries still waiting: the scan fails anyway.
  const stop = new AbortController();
  const signal = AbortSignal.any([options.signal, stop.signal]);
  const limit = pLimit(options.concurrency);
  const send: Send = (query) =>
    limit(() => runQuery(query, warehouses, options, signal)).catch((error: unknown) => {
      stop.abort();
      throw error;
    });
  const outcomes: QueryOutcome[] = [];
  const isolations: [string, Isolation][] = [];
  await Promise.all(
    plan.queries.map(async (query) => {
      const answer = await send(query);
      if (answer.refusal === null) outcomes.push(answer.outcome);
      else {
        const context = { schema, maxQuerySize: options.maxQuerySize, send };
        isolations.push([query.id, await isolateFailures(plan, query, { ...answer, refusal: answer.refusal }, context)]);
      }
    }),
  );
  let isolationQueries = 0;
  for (const [queryId, isolation] of isolations) {
    plan = withIsolation(plan, queryId, isolation.queries, isolation.failed);
    outcomes.push(...isolation.outcomes);
    isolationQueries += isolation.extraQueries;
  }
  return { plan, outcomes, isolationQueries };
}

export async function executeScan(
  snapshot: CatalogSnapshot,
  warehouses: ReadonlyMap<string, Warehouse>,
  options: ExecuteOptions,
): Promise<ScanOutcome> {
  const warehouseStarted = performance.now();
  const schema: WarehouseSchema = {};
  for (const [datasource, tables] of tablesByDatasource(snapshot)) {
    const warehouse = warehouses.get(datasource);
    // An unconfigured datasource leaves its tables out of the schema, so its tests report "table missing".
    schema[datasource] = warehouse ? await readSchema(warehouse, tables, options) : {};
  }
  // A metric whose filter or expression ClickHouse cannot parse is kept out of the queries
  // (it would fail its table's query) and judged "not evaluated", hence `unknown`.
  let sql;
  try {
    sql = await checkCatalogSql(snapshot, options.findings ?? NO_FINDINGS, warehouses, {
      queryIdPrefix: options.scanId,
      signal: options.signal,
      maxQuerySize: options.maxQuerySize,
    });
  } catch (error) {
    throw new WarehouseUnavailableError(`warehouse unavailable while checking the catalogue's SQL: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const blocked = blockedMetrics(snapshot, sql.sql_errors);
  // Column names written in another letter case than the warehouse's are read in its spelling.
  const cased = testsToRun(snapshot, blocked, schema);
  const findings: CatalogFindings = { ...sql, ...caseFindings(snapshot, cased.matches) };
  const tests = cased.tests;
  const incremental = options.incremental
    ? await startIncremental(tests, schema, warehouses, options.incremental, options).catch((error: unknown) => {
        throw new WarehouseUnavailableError(`warehouse unavailable while reading table fingerprints: ${(error as Error).message}`, {
          cause: error,
        });
      })
    : null;
  const toRead = incremental?.read ?? tests;
  const { plan, outcomes, isolationQueries } = await runPlan(
    await planInSlices(toRead, schema, options.maxQuerySize),
    schema,
    warehouses,
    options,
  );
  // freshness_anomaly's loads: MergeTree parts from the incremental scan's fingerprints (no
  // query of their own: without SCAN_INCREMENTAL only the newest row tells a load).
  const loads = options.anomalies?.loads;
  const partsOf = incremental?.partsOf;
  // Anomaly series: queries of their own (planScan leaves their checks out), judged below. On an
  // incremental scan, a table whose fingerprint is the held series' is judged again, not read.
  const anomalies = await readAnomaliesFor(tests, schema, warehouses, {
    ...options,
    anomalies: {
      ...options.anomalies,
      ...(loads ? { loads: { ...loads, ...(partsOf ? { partsOf } : {}) } } : {}),
      ...(incremental
        ? { fingerprints: incremental.fingerprintOf, ...(incremental.serverNow !== null ? { now: incremental.serverNow } : {}) }
        : {}),
    },
  });
  if (options.signal.aborted) throw new Error("scan cancelled");
  const warehouseSeconds = (performance.now() - warehouseStarted) / 1000;

  const evaluateStarted = performance.now();
  const observations = await anomalies.judge();
  const observe = createObserver(plan, outcomes, schema);
  await forEachSlice(toRead, (slice) => observeInto(observations, slice, observe));
  const kept = incremental?.finish(observations);
  const judgement = await judgeMetrics(snapshot, observations, blocked, options.lastJudgement ?? null);
  return {
    observations,
    statuses: judgement.statuses,
    summary: judgement.summary,
    judgement,
    blocked,
    findings,
    timings: { warehouse: warehouseSeconds, evaluate: (performance.now() - evaluateStarted) / 1000, series: anomalies.seconds },
    isolationQueries,
    anomalies: anomalies.outcome(),
    ...(incremental && kept ? { ...kept, incremental: incremental.summary } : {}),
  };
}
