// `scan` against the configured warehouse: one pass of the daemon's own scan stage
// (executeScan: plan, one query per table, evaluate, derive) over the selected metrics.
// Nothing is written to the store: it answers "is it safe now?", it does not make history.
import { randomUUID } from "node:crypto";
import type { Config } from "../config/config.js";
import type { Logger } from "../logger.js";
import { judgeAll } from "../evaluate/evaluate.js";
import { executeScan } from "../scan/execute-scan.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import { isProblem, testResultView } from "../services/views.js";
import { createWarehouses } from "../warehouse/create-warehouses.js";
import { CliError } from "./cli-error.js";
import type { MetricVerdict } from "./verdict.js";

export interface LocalScanProgress {
  /** table queries planned (a table whose folded query fails is re-run per filter, so more may come) */
  tables: number;
  queriesDone: number;
}

export async function scanLocally(
  config: Config,
  snapshot: CatalogSnapshot,
  logger: Logger,
  options: { signal: AbortSignal; onProgress?: (progress: LocalScanProgress) => void },
): Promise<MetricVerdict[]> {
  const tables = new Set(snapshot.tests.map((t) => `${t.datasource}|${t.table}`)).size;
  const progress: LocalScanProgress = { tables, queriesDone: 0 };
  let warehouses;
  try {
    warehouses = await createWarehouses(config, logger);
  } catch (error) {
    throw new CliError(`cannot open the warehouse: ${(error as Error).message}`);
  }
  try {
    options.onProgress?.(progress);
    const outcome = await executeScan(snapshot, warehouses, {
      scanId: `cli-${randomUUID()}`,
      concurrency: config.SCAN_CONCURRENCY,
      maxQuerySize: config.MAX_QUERY_SIZE,
      signal: options.signal,
      onQuery: () => {
        progress.queriesDone += 1;
        options.onProgress?.(progress);
      },
    });
    const checkedAt = new Date().toISOString();
    const results = judgeAll(snapshot.tests, outcome.observations, outcome.blocked);
    return outcome.statuses.map((s) => ({
      metric_name: s.metric_name,
      status: s.status,
      safe_to_use: s.safe_to_use,
      checked_at: checkedAt,
      since: null,
      tests: s.tests,
      failing_tests: results.filter((r) => r.metric === s.metric_name && isProblem(r)).map(testResultView),
    }));
  } catch (error) {
    // A fault is never a verdict: no exit 0/1 on a scan that did not complete.
    throw new CliError(`scan failed: ${(error as Error).message}`);
  } finally {
    await Promise.all([...warehouses.values()].map((w) => w.close().catch(() => undefined)));
  }
}
