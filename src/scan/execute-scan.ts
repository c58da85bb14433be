// One pass over the warehouse for a catalogue snapshot:
// schema (system.columns) -> plan -> one query per table group -> evaluate -> derive.
import pLimit from "p-limit";
import { deriveStatuses } from "../derive/derive.js";
import type { MetricStatus } from "../derive/types.js";
import { evaluate } from "../evaluate/evaluate.js";
import type { QueryOutcome, TestResult } from "../evaluate/types.js";
import type { InferredTest } from "../infer/types.js";
import { planScan } from "../plan/plan-scan.js";
import { schemaFromRows, schemaQuery } from "../plan/schema-query.js";
import type { WarehouseSchema } from "../plan/types.js";
import type { Warehouse } from "../warehouse/warehouse.js";
import type { CatalogSnapshot } from "../services/catalog-snapshot.js";

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

  const plan = planScan(snapshot.tests, schema, { maxQuerySize: options.maxQuerySize });
  const limit = pLimit(options.concurrency);
  const outcomes: QueryOutcome[] = await Promise.all(
    plan.queries.map((query) =>
      limit(async (): Promise<QueryOutcome> => {
        const warehouse = warehouses.get(query.datasource);
        if (!warehouse) return { query_id: query.id, row: null, error: `datasource "${query.datasource}" is not configured` };
        const started = performance.now();
        try {
          const rows = await warehouse.query(query.sql, { queryId: `${options.scanId}-${query.id}`, signal: options.signal });
          return { query_id: query.id, row: (rows[0] ?? null) as QueryOutcome["row"], error: rows[0] ? null : "query returned no row" };
        } catch (error) {
          return { query_id: query.id, row: null, error: (error as Error).message };
        } finally {
          options.onQuery?.((performance.now() - started) / 1000);
        }
      }),
    ),
  );
  if (options.signal.aborted) throw new Error("scan cancelled");

  const results = evaluate(snapshot.tests, plan, outcomes, schema);
  const statuses = deriveStatuses(
    snapshot.metrics.map((m) => m.name),
    results,
  );
  return { results, statuses };
}
