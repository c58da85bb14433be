// The reference MetricFlow project in dbt's latest YAML spec (test/fixtures/metricflow-latest)
// scanned beside its legacy original on both engines, over the same tables with planted defects:
// the same checks find the same rows, and every metric gets the same status.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestResult } from "../../src/evaluate/types.js";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import { uniqueDatabase, type WarehouseHandle, engineCases } from "../helpers/warehouses.js";
import { metricflowStatements } from "./metricflow-warehouse.js";
import { runScan, type ScanRun } from "./run-scan.js";

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures");

/** Every distinct check's verdict: key, status and counts. */
function verdicts(snapshot: CatalogSnapshot, results: TestResult[]): string[] {
  const out = new Set<string>();
  results.forEach((result, i) => {
    const test = snapshot.tests[i]!;
    out.add(`${test.key}|${result.status}|${result.rows_affected}|${result.rows_total}`);
  });
  return [...out].sort();
}

describe.each(engineCases)("$name: the reference project in the latest spec", (engine) => {
  const db = uniqueDatabase("mr_mf_latest");
  let handle: WarehouseHandle | undefined;
  let legacy: CatalogSnapshot;
  let latest: CatalogSnapshot;
  let legacyRun: ScanRun;
  let latestRun: ScanRun;

  beforeAll(async () => {
    handle = await engine.open();
    await handle.exec(`DROP DATABASE IF EXISTS ${db}`);
    for (const statement of metricflowStatements(db, true)) await handle.exec(statement);
    legacy = await loadCatalogSnapshot(path.join(FIXTURES, "metricflow"), new Date(), { metricflowDatabase: db });
    latest = await loadCatalogSnapshot(path.join(FIXTURES, "metricflow-latest"), new Date(), { metricflowDatabase: db });
    legacyRun = await runScan(legacy, handle.warehouse, { scanId: `mf-legacy-${engine.name}` });
    latestRun = await runScan(latest, handle.warehouse, { scanId: `mf-latest-${engine.name}` });
  }, 180_000);
  afterAll(async () => {
    if (!handle) return;
    await handle.exec(`DROP DATABASE IF EXISTS ${db}`);
    await handle.close();
  });

  it("finds the same rows with the same checks", () => {
    const found = verdicts(latest, latestRun.results);
    expect(found.length).toBeGreaterThan(100);
    expect(found.filter((v) => !v.includes("|passing|")).length).toBeGreaterThan(10);
    expect(found).toEqual(verdicts(legacy, legacyRun.results));
  });

  it("gives every metric the same status", () => {
    const statuses = (run: ScanRun) => run.statuses.map((s) => `${s.metric_name}: ${s.status}`).sort();
    expect(statuses(latestRun)).toEqual(statuses(legacyRun));
    expect(latestRun.statuses.some((s) => s.status === "unreliable")).toBe(true);
  });
});
