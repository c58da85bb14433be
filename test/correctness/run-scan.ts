// Runs the daemon's real scan path (executeScan: schema -> plan -> one query per table
// -> evaluate -> derive) on a real warehouse, recording every query it sends.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { judgeAll } from "../../src/evaluate/evaluate.js";
import type { TestResult } from "../../src/evaluate/types.js";
import { executeScan, type ScanOutcome } from "../../src/scan/execute-scan.js";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import type { QueryOptions, Row, Warehouse } from "../../src/warehouse/warehouse.js";
import type { EngineCase, WarehouseHandle } from "../helpers/warehouses.js";
import { fixtureStatements } from "./fixture-warehouse.js";

export interface SentQuery {
  sql: string;
  options: QueryOptions;
}

/** The same warehouse object, with every query() call recorded before it runs. */
export function countingWarehouse(warehouse: Warehouse, sent: SentQuery[]): Warehouse {
  return new Proxy(warehouse, {
    get(target, property, receiver) {
      if (property !== "query") return Reflect.get(target, property, receiver) as unknown;
      return (sql: string, options: QueryOptions): Promise<Row[]> => {
        sent.push({ sql, options });
        return target.query(sql, options);
      };
    },
  });
}

export interface ScanRun extends ScanOutcome {
  results: TestResult[];
  sent: SentQuery[];
  scanId: string;
}

export async function runScan(
  snapshot: CatalogSnapshot,
  warehouse: Warehouse,
  options: { scanId?: string; maxQuerySize?: number; concurrency?: number } = {},
): Promise<ScanRun> {
  const sent: SentQuery[] = [];
  const scanId = options.scanId ?? `corr-${Date.now().toString(36)}`;
  const outcome = await executeScan(snapshot, new Map([[warehouse.name, countingWarehouse(warehouse, sent)]]), {
    scanId,
    concurrency: options.concurrency ?? 4,
    maxQuerySize: options.maxQuerySize ?? 262_144,
    signal: new AbortController().signal,
  });
  // Every (metric, test) judged on its check's observation, in the snapshot's order.
  return { ...outcome, results: judgeAll(snapshot.tests, outcome.observations, outcome.blocked), sent, scanId };
}

/** Opens the engine and seeds the fixture into `db`; the caller closes it with dropFixture. */
export async function openFixture(engine: EngineCase, db: string, options: { timeoutSeconds?: number } = {}): Promise<WarehouseHandle> {
  const handle = await engine.open(options);
  await handle.exec(`DROP DATABASE IF EXISTS ${db}`);
  for (const statement of fixtureStatements(db)) await handle.exec(statement);
  return handle;
}

export async function dropFixture(handle: WarehouseHandle | undefined, db: string): Promise<void> {
  if (!handle) return;
  await handle.exec(`DROP DATABASE IF EXISTS ${db}`);
  await handle.close();
}

/** The probes asking whether the catalogue's filters and expressions parse (ids `<scan>-sql<n>`). */
export function sqlChecks(sent: SentQuery[]): SentQuery[] {
  return sent.filter((q) => /-sql\d+$/.test(q.options.queryId));
}

/** The anomaly rules' queries (ids `<scan>-series<n>-cadence`, `<scan>-series<n>-<grain>`...). */
export function seriesQueries(sent: SentQuery[]): SentQuery[] {
  return sent.filter((q) => /-series\d+-/.test(q.options.queryId));
}

/** Table queries only (the schema read from system.columns is the scan's first query, then the SQL checks; anomaly series have their own). */
export function tableQueries(sent: SentQuery[]): SentQuery[] {
  return sent.filter(
    (q) => !q.sql.includes("FROM system.columns") && !/-sql\d+$/.test(q.options.queryId) && !/-series\d+-/.test(q.options.queryId),
  );
}

/** "`db`.`orders`" and the WHERE text of a planned table query. */
export function groupOf(sql: string): { table: string; filter: string | null } {
  const match = /^SELECT count\(\) AS total.* FROM (`[^`]+`\.`[^`]+`)(?: WHERE \((.*)\))?$/s.exec(sql);
  if (!match) throw new Error(`not a planned table query: ${sql.slice(0, 200)}`);
  return { table: match[1]!, filter: match[2] ?? null };
}

/** What scanProject's hooks set up: read after beforeAll has run. */
export interface ProjectScan {
  snapshot: CatalogSnapshot;
  run: ScanRun;
  /** the engine's warehouse the scan read (for a suite's further scans) */
  warehouse: Warehouse;
}

/**
 * A suite's hooks for one small project on one engine: the YAML written to a temp folder as `file`
 * (its tables in database `db`), the warehouse loaded by `statements`, and one scan; all dropped after.
 */
export function scanProject(
  engine: EngineCase,
  options: { db: string; file: string; project: string; statements: (db: string) => string[] },
): ProjectScan {
  const scan = {} as ProjectScan;
  let handle: WarehouseHandle | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), `${options.db}-`));
    await writeFile(path.join(dir, options.file), options.project);
    scan.snapshot = await loadCatalogSnapshot(dir, new Date(), { metricflowDatabase: options.db });
    handle = await engine.open();
    await handle.exec(`DROP DATABASE IF EXISTS ${options.db}`);
    for (const statement of options.statements(options.db)) await handle.exec(statement);
    scan.warehouse = handle.warehouse;
    scan.run = await runScan(scan.snapshot, handle.warehouse);
  }, 120_000);
  afterAll(async () => {
    await handle?.exec(`DROP DATABASE IF EXISTS ${options.db}`);
    await handle?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return scan;
}
