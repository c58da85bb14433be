// One pass over the warehouse for a catalogue snapshot:
// schema (system.columns) -> plan -> one query per table (per filter for a table whose
// folded query failed) -> evaluate -> derive.
import pLimit from "p-limit";
import { deriveStatuses } from "../derive/derive.js";
import type { MetricStatus } from "../derive/types.js";
import { mergeBlocked } from "../evaluate/blocked.js";
import { evaluate } from "../evaluate/evaluate.js";
import type { QueryOutcome, TestResult } from "../evaluate/types.js";
import type { InferredTest } from "../infer/types.js";
import { planScan, unfoldQuery } from "../plan/plan-scan.js";
import { schemaFromRows, schemaQuery } from "../plan/schema-query.js";
import type { TableQuery, WarehouseSchema } from "../plan/types.js";
import { WarehouseError } from "../warehouse/warehouse-error.js";
import type { Warehouse } from "../warehouse/warehouse.js";
import type { CatalogSnapshot } from "../services/catalog-snapshot.js";
import { blockedMetrics, checkCatalogSql } from "./check-sql.js";

export interface ExecuteOptions {
  scanId: string;
  concurrency: number;
  maxQuerySize: number;
  signal: AbortSignal;
  /** called with each warehouse query's duration, for the Prometheus histogram */
  onQuery?: (seconds: number) => void;
}

export interface ScanOutcome {
  results: TestResult[];
  statuses: MetricStatus[];
}

/** Raised when a whole datasource cannot be read: the scan fails and statuses keep their last value. */
export class WarehouseUnavailableError extends Error {
  override name = "WarehouseUnavailableError";
}

async function readSchema(warehouse: Warehouse, tests: InferredTest[], options: ExecuteOptions): Promise<WarehouseSchema[string]> {
  const tables = [...new Set(tests.flatMap((t) => [t.table, ...t.columns.map((c) => c.table)]))].sort();
  if (tables.length === 0) return {};
  try {
    const rows = await warehouse.query(schemaQuery(tables), { queryId: `${options.scanId}-schema-${warehouse.name}`, signal: options.signal });
    return schemaFromRows(rows as { database: string; table: string; name: string; type: string }[]);
  } catch (error) {
    throw new WarehouseUnavailableError(`warehouse "${warehouse.name}" unavailable: ${(error as Error).message}`, { cause: error });
  }
}

async function runQuery(
  query: TableQuery,
  warehouses: ReadonlyMap<string, Warehouse>,
  options: ExecuteOptions,
): Promise<{ outcome: QueryOutcome; refused: boolean }> {
  const warehouse = warehouses.get(query.datasource);
  if (!warehouse) return { outcome: { query_id: query.id, row: null, error: `datasource "${query.datasource}" is not configured` }, refused: false };
  const started = performance.now();
  try {
    const rows = await warehouse.query(query.sql, { queryId: `${options.scanId}-${query.id}`, signal: options.signal });
    const row = (rows[0] ?? null) as QueryOutcome["row"];
    return { outcome: { query_id: query.id, row, error: row ? null : "query returned no row" }, refused: false };
  } catch (error) {
    // Only a query ClickHouse ran and rejected; not a timeout, cancel or lost connection.
    const refused = error instanceof WarehouseError && error.kind === "query";
    return { outcome: { query_id: query.id, row: null, error: (error as Error).message }, refused };
  } finally {
    options.onQuery?.((performance.now() - started) / 1000);
  }
}

export async function executeScan(
  snapshot: CatalogSnapshot,
  warehouses: ReadonlyMap<string, Warehouse>,
  options: ExecuteOptions,
): Promise<ScanOutcome> {
  const datasources = [...new Set(snapshot.tests.map((t) => t.datasource))].sort();
  const schema: WarehouseSchema = {};
  for (const datasource of datasources) {
    const warehouse = warehouses.get(datasource);
    // An unconfigured datasource leaves its tables out of the schema, so its tests report "table missing".
    schema[datasource] = warehouse ? await readSchema(warehouse, snapshot.tests.filter((t) => t.datasource === datasource), options) : {};
  }

  // A metric whose filter or expression ClickHouse cannot parse is kept out of the queries
  // (it would fail its table's query) and reported as not evaluated, hence `unknown`.
  let sqlErrors;
  try {
    sqlErrors = await checkCatalogSql(snapshot, warehouses, { queryIdPrefix: options.scanId, signal: options.signal, maxQuerySize: options.maxQuerySize });
  } catch (error) {
    throw new WarehouseUnavailableError(`warehouse unavailable while checking the catalogue's SQL: ${(error as Error).message}`, { cause: error });
  }
  const blocked = blockedMetrics(snapshot, sqlErrors);
  const tests = blocked.size === 0 ? snapshot.tests : snapshot.tests.filter((t) => !blocked.has(t.metric));

  let plan = planScan(tests, schema, { maxQuerySize: options.maxQuerySize });
  const limit = pLimit(options.concurrency);
  const run = (queries: TableQuery[]) => Promise.all(queries.map((query) => limit(() => runQuery(query, warehouses, options))));
  const outcomes = new Map<string, QueryOutcome>();
  let pending = plan.queries;
  // A folded query that ClickHouse refused (one filter throws, say) is re-run as one query
  // per filter, so only that filter's tests end up "not evaluated". Outages are not retried.
  while (pending.length > 0) {
    const retry: TableQuery[] = [];
    for (const { outcome, refused } of await run(pending)) {
      const unfolded = refused && !options.signal.aborted ? unfoldQuery(plan, outcome.query_id, schema, { maxQuerySize: options.maxQuerySize }) : null;
      if (unfolded === null) {
        outcomes.set(outcome.query_id, outcome);
        continue;
      }
      const before = new Set(plan.queries.map((query) => query.id));
      plan = unfolded;
      retry.push(...plan.queries.filter((query) => !before.has(query.id)));
    }
    pending = retry;
  }
  if (options.signal.aborted) throw new Error("scan cancelled");

  const results = mergeBlocked(snapshot.tests, evaluate(tests, plan, [...outcomes.values()], schema), blocked);
  const statuses = deriveStatuses(
    snapshot.metrics.map((m) => m.name),
    results,
  );
  return { results, statuses };
}
