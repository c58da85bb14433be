// Bisection isolates checks whose SQL throws on the data; it never turns an outage into a finding.
// The daemon's warehouse (with its retries) reaches the ClickHouse server through a proxy the test
// owns; the moment the scan starts bisecting a refused table query, the proxy dies (every
// connection reset, new ones refused), and the scan fails as for any other lost query.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { WarehouseUnavailableError } from "../../src/scan/execute-scan.js";
import { execServer } from "../../src/warehouse/clickhouse-server.js";
import { createWarehouses } from "../../src/warehouse/create-warehouses.js";
import type { QueryOptions, Row, Warehouse } from "../../src/warehouse/warehouse.js";
import { loadYaml } from "../correctness/fixture-catalog.js";
import { isolationStatements } from "../correctness/isolation-warehouse.js";
import { runScan } from "../correctness/run-scan.js";
import { startFlakyProxy, type FlakyProxy } from "../helpers/flaky-proxy.js";
import { serverConnection, uniqueDatabase } from "../helpers/warehouses.js";

const server = serverConnection();

describe.skipIf(!server)("a connection lost while bisecting a refused query", () => {
  const db = uniqueDatabase("mr_isolate_fault");
  let proxy: FlakyProxy;
  let warehouse: Warehouse;
  let dataDir: string;

  beforeAll(async () => {
    await execServer(server!, [`DROP DATABASE IF EXISTS ${db}`, ...isolationStatements(db)]);
    proxy = await startFlakyProxy(server!.url, { dropEvery: Number.MAX_SAFE_INTEGER });
    dataDir = await mkdtemp(path.join(os.tmpdir(), "mr-isolate-fault-"));
    const config = loadConfig({ CLICKHOUSE_URL: proxy.url, DATA_DIR: dataDir, QUERY_TIMEOUT_SECONDS: "5" });
    warehouse = (await createWarehouses(config, pino({ level: "silent" }))).get("default")!;
  });
  afterAll(async () => {
    await warehouse?.close();
    await proxy?.close();
    await rm(dataDir, { recursive: true, force: true });
    await execServer(server!, `DROP DATABASE IF EXISTS ${db}`);
  });

  it("fails the scan: no check is reported failed or unevaluated for it", async () => {
    const snapshot = await loadYaml({
      "orders.yaml": `metrics:
  - name: daily_total
    table: ${db}.orders
    measures: [{ alias: total, function: Sum, column: amount }]
    dimensions:
      - { name: order_date, expr: "cast(ordered_at as DATE)" }
`,
    });
    expect(snapshot.errors).toEqual([]);
    const sent: string[] = [];
    // The first query of the bisection (ids <scan>-q<n>-i<k>) finds the server gone.
    const cutting: Warehouse = {
      ...warehouse,
      query(sql: string, options: QueryOptions): Promise<Row[]> {
        sent.push(options.queryId);
        if (/-q\d+-i\d+$/.test(options.queryId)) proxy.cut();
        return warehouse.query(sql, options);
      },
    };
    const scan = runScan(snapshot, cutting, { scanId: "isolate-fault" });
    await expect(scan).rejects.toBeInstanceOf(WarehouseUnavailableError);
    await expect(scan).rejects.toThrow(/warehouse "default" did not answer/);
    // The table's query was refused (the cast met a NULL) and bisection had begun.
    expect(sent.some((id) => /^isolate-fault-q\d+$/.test(id))).toBe(true);
    expect(sent.some((id) => /^isolate-fault-q\d+-i1$/.test(id))).toBe(true);
  });
});
