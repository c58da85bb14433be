// A fault is never reported as data. Through a proxy that resets connections, transient errors
// are retried and no metric changes status; with the test's own ClickHouse killed in the middle
// of a scan, the scan fails, statuses, history and the exported gauges stay as they were; a scan
// started while it is down fails with one clear reason; once it is started again, the next scan
// of the same scan service (no restart) succeeds.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import type { Metrics } from "../../src/metrics/prometheus.js";
import type { ReadModel } from "../../src/read-model/read-model.js";
import type { ScanService } from "../../src/scan/types.js";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { createServices } from "../../src/create-services.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { Store } from "../../src/store/store.js";
import { execServer } from "../../src/warehouse/clickhouse-server.js";
import { createWarehouses } from "../../src/warehouse/create-warehouses.js";
import type { Warehouse } from "../../src/warehouse/warehouse.js";
import { loadFixtureCatalog, loadYaml } from "../correctness/fixture-catalog.js";
import { fixtureStatements } from "../correctness/fixture-warehouse.js";
import { startFlakyProxy, type FlakyProxy } from "../helpers/flaky-proxy.js";
import { startPrivateClickHouse, type PrivateClickHouse } from "../helpers/private-clickhouse.js";
import { serverConnection } from "../helpers/warehouses.js";
import { type TestDatabase, type TestTarget, storeTargets } from "../store/databases.js";

const server = serverConnection();
const logger = pino({ level: "silent" });

interface Rig {
  db: TestDatabase;
  store: Store;
  warehouses: Map<string, Warehouse>;
  readModel: ReadModel;
  scans: ScanService;
  metrics: Metrics;
  statuses(): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/** The daemon's own pieces (config -> warehouses with retries, store, createServices) on `url`. */
async function rig(target: TestTarget, url: string, snapshot: CatalogSnapshot, timeoutSeconds = 20): Promise<Rig> {
  const db = await target.fresh();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "mr-faults-"));
  const store = await createStore({ ...db.options, logger });
  const warehouses = await createWarehouses(
    loadConfig({ CLICKHOUSE_URL: url, DATA_DIR: dataDir, QUERY_TIMEOUT_SECONDS: String(timeoutSeconds) }),
    logger,
  );
  const {
    readModel,
    scanService: scans,
    metrics,
    services: { reliability },
  } = createServices({
    getSnapshot: () => snapshot,
    warehouses,
    store,
    logger,
    historyLimit: 50,
    scan: { concurrency: 4, maxQuerySize: 262_144, retentionDays: 30 },
  });
  await readModel.refresh({ force: true });
  return {
    db,
    store,
    warehouses,
    readModel,
    scans,
    metrics,
    async statuses() {
      return Object.fromEntries((await reliability.status()).metrics.map((m) => [m.metric_name, m.status]));
    },
    async close() {
      await scans.stop();
      for (const w of warehouses.values()) await w.close();
      await store.close();
      await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

describe.skipIf(!server).each(storeTargets)("warehouse faults on a ClickHouse server, store on $name", (target) => {
  describe("connections reset by a proxy", () => {
    const db = `mr_faults_proxy_${process.pid}_${target.name}`;
    let proxy: FlakyProxy;
    let clean: Rig;
    let flaky: Rig;

    beforeAll(async () => {
      await execServer(server!, [`DROP DATABASE IF EXISTS ${db}`, ...fixtureStatements(db)]);
      const snapshot = await loadFixtureCatalog(db);
      proxy = await startFlakyProxy(server!.url, { dropEvery: 3 });
      clean = await rig(target, server!.url, snapshot);
      flaky = await rig(target, proxy.url, snapshot);
    });
    afterAll(async () => {
      await flaky?.close();
      await clean?.close();
      await proxy?.close();
      await execServer(server!, `DROP DATABASE IF EXISTS ${db}`);
    });

    it("retries them: three scans succeed with the statuses of a clean connection, none changing", async () => {
      const reference = await clean.scans.run("manual");
      expect(reference.scan.status).toBe("succeeded");
      const expected = await clean.statuses();
      expect(Object.values(expected)).toContain("unreliable");
      for (let i = 0; i < 3; i++) {
        const { scan } = await flaky.scans.run("schedule");
        expect(scan).toMatchObject({ status: "succeeded", error: null });
        expect(await flaky.statuses()).toEqual(expected);
      }
      expect(proxy.dropped()).toBeGreaterThan(0);
      // one status period per metric: nothing flapped
      const history = (await flaky.store.readState({ historyLimit: 10 })).history;
      for (const [metric, periods] of history) expect(periods, metric).toHaveLength(1);
    });
  });

  describe("the test's own ClickHouse killed in the middle of a scan", () => {
    const db = "mr_faults_kill";
    let clickhouse: PrivateClickHouse;
    let node: Rig;

    beforeAll(async () => {
      clickhouse = await startPrivateClickHouse();
      await execServer({ url: clickhouse.url }, fixtureStatements(db));
      const fixture = await loadFixtureCatalog(db);
      // One slow table keeps the scan in flight long enough to kill the server under it.
      const slow = await loadYaml({
        "slow.yaml": `metrics:\n  - name: slow_metric\n    table: system.one\n    filter: "sleep(2) = 0"\n    measures:\n      - { alias: rows, function: Count }\n`,
      });
      node = await rig(
        target,
        clickhouse.url,
        {
          ...fixture,
          metrics: [...fixture.metrics, ...slow.metrics],
          tests: [...fixture.tests, ...slow.tests],
          testsByMetric: new Map([...fixture.testsByMetric, ...slow.testsByMetric]),
          metricsByName: new Map([...fixture.metricsByName, ...slow.metricsByName]),
        },
        10,
      );
    });
    afterAll(async () => {
      await node?.close();
      await clickhouse?.dispose();
    });

    it("fails the scan, and keeps statuses, status periods and gauges as they were", async () => {
      const first = await node.scans.run("startup");
      expect(first.scan.status).toBe("succeeded");
      const before = {
        statuses: await node.statuses(),
        state: await node.store.readState({ historyLimit: 10 }),
        gauges: statusLines(await node.metrics.text()),
      };
      expect(Object.values(before.statuses)).toContain("unreliable");

      const { scan } = await node.scans.trigger("schedule");
      await new Promise((r) => setTimeout(r, 700)); // the slow query is running
      await clickhouse.kill();
      const failed = await node.scans.wait(scan.scan_id);
      expect(failed).toMatchObject({ status: "failed", error: expect.stringMatching(/warehouse "default" (did not answer|unavailable)/) });
      expect(await node.store.getScan(scan.scan_id)).toMatchObject({ status: "failed" });

      expect(await node.statuses()).toEqual(before.statuses);
      const after = await node.store.readState({ historyLimit: 10 });
      expect(after.statuses).toEqual(before.state.statuses);
      expect(after.history).toEqual(before.state.history);
      expect(after.observations).toEqual(before.state.observations);
      expect(after.scan?.scan_id).toBe(first.scan.scan_id);
      expect(statusLines(await node.metrics.text())).toEqual(before.gauges);
      expect(await node.metrics.text()).toMatch(/metric_reliability_scans_total\{trigger="schedule",outcome="failed"\} 1/);
    });

    it("fails a scan started while it is down, with one clear reason, and keeps statuses", async () => {
      const before = { statuses: await node.statuses(), state: await node.store.readState({ historyLimit: 10 }) };
      const started = performance.now();
      const { scan } = await node.scans.trigger("manual");
      const failed = await node.scans.wait(scan.scan_id);
      console.info(
        `warehouse-faults [${target.name}]: a scan with ClickHouse down failed in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      // One line naming the datasource and the cause, not one error per table or per retry.
      expect(failed).toMatchObject({ status: "failed", error: expect.stringMatching(/^warehouse "default" unavailable: .*ECONNREFUSED/) });
      expect(failed.error!.split("\n")).toHaveLength(1);
      expect(failed.error!.match(/ECONNREFUSED/g)).toHaveLength(1);
      expect(await node.store.getScan(scan.scan_id)).toMatchObject({ status: "failed", error: failed.error });
      expect(await node.statuses()).toEqual(before.statuses);
      expect(await node.store.readState({ historyLimit: 10 })).toEqual(before.state);
    });

    it("succeeds at the next scan once it is back, with no restart of anything but ClickHouse", async () => {
      const before = { statuses: await node.statuses(), history: (await node.store.readState({ historyLimit: 10 })).history };
      const restarted = performance.now();
      await clickhouse.start();
      const up = performance.now();
      const { scan } = await node.scans.run("schedule");
      console.info(
        `warehouse-faults [${target.name}]: ClickHouse answered ${((up - restarted) / 1000).toFixed(1)} s after its start; the next scan succeeded ${((performance.now() - up) / 1000).toFixed(1)} s later`,
      );
      expect(scan).toMatchObject({ status: "succeeded", error: null });
      // The same data: the same statuses, and no status period opened or closed by the outage.
      expect(await node.statuses()).toEqual(before.statuses);
      expect((await node.store.readState({ historyLimit: 10 })).history).toEqual(before.history);
      const text = await node.metrics.text();
      expect(text).toMatch(/^metric_reliability_scans_total\{trigger="schedule",outcome="succeeded"\} 1$/m);
      expect(text).toMatch(/^metric_reliability_scans_total\{trigger="manual",outcome="failed"\} 1$/m);
    });
  });
});

/** The per-metric series the alert rules read. */
function statusLines(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("metric_reliability_status{") || line.startsWith("metric_reliability_safe_to_use{"));
}
