// Every scan query runs read-only, with max_execution_time = QUERY_TIMEOUT_SECONDS, under the
// scan's query id: checked from INSIDE the scan's own queries (a metric filter reads
// system.settings / system.processes), on warehouses built from the daemon's config.
// A query stopped by the time limit is a fault, not a finding: the scan fails and says why.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/logger.js";
import { createWarehouses } from "../../src/warehouse/create-warehouses.js";
import type { Warehouse } from "../../src/warehouse/warehouse.js";
import { serverConnection } from "../helpers/warehouses.js";
import { loadYaml } from "./fixture-catalog.js";
import { runScan, type ScanRun } from "./run-scan.js";

const TIMEOUT = 1; // QUERY_TIMEOUT_SECONDS
const SCAN_ID = "corr-settings";

const server = serverConnection();
const cases = [
  { name: "embedded" as const, env: {} as Record<string, string> },
  ...(server
    ? [
        {
          name: "server" as const,
          env: {
            CLICKHOUSE_URL: server.url,
            ...(server.username ? { CLICKHOUSE_USER: server.username } : {}),
            ...(server.password ? { CLICKHOUSE_PASSWORD: server.password } : {}),
          },
        },
      ]
    : []),
];

/** The query's own id, as the engine sees it: the server's query_id, chdb's leading comment. */
function ownQueryId(engine: "embedded" | "server"): string {
  const mine =
    engine === "server"
      ? `query_id LIKE '${SCAN_ID}-q%' AND position(query, 'system.processes') > 0`
      : `position(query, 'query_id: ${SCAN_ID}-q') = 4`; // the text starts with the id comment
  return `(SELECT count() FROM system.processes WHERE ${mine}) = 1`;
}

function catalog(engine: "embedded" | "server"): string {
  const setting = (name: string, value: string) => `(SELECT value FROM system.settings WHERE name = '${name}') = '${value}'`;
  const metric = (name: string, filter: string, table = "system.one") => `
  - name: ${name}
    table: ${table}
    filter: "${filter}"
    measures:
      - { alias: rows, function: Count }`;
  return `metrics:${metric("runs_read_only", setting("readonly", "1"))}
${metric("runs_with_time_limit", setting("max_execution_time", String(TIMEOUT)))}
${metric("runs_under_scan_query_id", ownQueryId(engine))}
`;
}

const slowCatalog = () => `metrics:
  - name: runs_too_long
    table: system.databases
    filter: "sleep(3) = 0"
    measures:
      - { alias: rows, function: Count }`;

describe.each(cases)("$name warehouse from the config", ({ name, env }) => {
  let dataDir: string;
  let warehouses: Map<string, Warehouse>;
  let run: ScanRun;
  const notEmpty = (metric: string) => run.results.find((r) => r.metric === metric && r.rule === "table_not_empty")!;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "mr-corr-settings-"));
    const config = loadConfig({ ...env, QUERY_TIMEOUT_SECONDS: String(TIMEOUT), DATA_DIR: dataDir });
    warehouses = await createWarehouses(config, createLogger("silent"));
    expect(warehouses.get("default")!.engine).toBe(name);
    const snapshot = await loadYaml({ "settings.yaml": catalog(name) });
    expect(snapshot.errors).toEqual([]);
    // One query at a time, so system.processes shows only the query that asks.
    run = await runScan(snapshot, warehouses.get("default")!, { scanId: SCAN_ID, concurrency: 1 });
  });
  afterAll(async () => {
    for (const warehouse of warehouses?.values() ?? []) await warehouse.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("sends one query per table here (the filters on system.one fold into one query)", () => {
    // (After the schema, one probe asks whether every filter parses.)
    expect(run.sent.map((s) => s.options.queryId)).toEqual([`${SCAN_ID}-schema-default`, `${SCAN_ID}-sql1`, `${SCAN_ID}-q1`]);
    expect(run.sent[2]!.sql).toMatch(/FROM `system`\.`one` WHERE \(\(.*\) OR \(.*\) OR \(.*\)\)$/);
  });

  it("runs every scan query with readonly=1 and max_execution_time from QUERY_TIMEOUT_SECONDS", () => {
    // The filter keeps system.one's single row only when the setting holds inside the query.
    for (const metric of ["runs_read_only", "runs_with_time_limit"]) {
      expect(notEmpty(metric)).toMatchObject({ status: "passing", rows_total: 1 });
    }
  });

  it("tags every scan query with its query id, visible to the engine", () => {
    expect(notEmpty("runs_under_scan_query_id")).toMatchObject({ status: "passing", rows_total: 1 });
  });

  it("a query stopped by max_execution_time fails the scan with the reason, instead of becoming a finding", async () => {
    const slow = await loadYaml({ "slow.yaml": slowCatalog() });
    await expect(runScan(slow, warehouses.get("default")!, { scanId: `${SCAN_ID}-slow`, concurrency: 1 })).rejects.toThrow(
      new RegExp(`^warehouse "default" did not answer: .*query ${SCAN_ID}-slow-q1 failed: ClickHouse error 159: Timeout exceeded`),
    );
  });
});
