// The pages' reads on the real store (PGlite), the real scan service and the embedded warehouse
// seeded with the demo shop: one metric with every test, the blast radius of a table, and the
// health of the scans (a scan against a dead ClickHouse server fails, and the page must say so).
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_METRICS_DIR } from "../../src/config/config.js";
import { createBrowseService, type BrowseService } from "../../src/services/browse-service.js";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import type { ReadModel } from "../../src/read-model/read-model.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { Store } from "../../src/store/store.js";
import { createServerWarehouse } from "../../src/warehouse/clickhouse-server.js";
import { DEMO_DATABASE } from "../../src/warehouse/demo-dataset.js";
import { freePort } from "../helpers/free-port.js";
import { testReadModel, testScanService } from "../helpers/scan-service.js";
import { engines, seedDemo, type WarehouseHandle } from "../helpers/warehouses.js";
import { targets, type TestDatabase } from "../store/databases.js";

const logger = pino({ level: "silent" });
const embedded = engines.find((e) => e.name === "embedded")!;
const pglite = targets.find((t) => t.name === "pglite")!;

let handle: WarehouseHandle;
let db: TestDatabase;
let store: Store;
let demo: CatalogSnapshot;
let readModel: ReadModel;
let browse: BrowseService;

beforeAll(async () => {
  handle = await embedded.open();
  await seedDemo(handle, DEMO_DATABASE);
  db = await pglite.fresh();
  store = await createStore({ ...db.options, logger });
  demo = await loadCatalogSnapshot(DEMO_METRICS_DIR);
  readModel = testReadModel(store, () => demo);
  await readModel.refresh({ force: true });
  browse = createBrowseService({ readModel, store, scanHealthTtlMs: 0 });
});

afterAll(async () => {
  await store?.close();
  await db?.drop();
  await handle?.close();
});

describe("browse service", () => {
  it("before any scan: no statuses, no scans, every metric unknown", async () => {
    expect(await browse.scanHealth()).toEqual({
      statuses_from: null,
      last_finished: null,
      running: null,
      failures_since_success: 0,
      store_error: null,
    });
    const detail = await browse.metricDetail("gross_revenue");
    expect(detail).toMatchObject({ row: { status: "unknown", safe_to_use: false }, results: [], history: [], scan_id: null });
  });

  it("after a scan, gives a metric every test result (problems first) and what is built on it", async () => {
    const scans = testScanService(store, handle.warehouse, () => demo, readModel);
    const { scan } = await scans.trigger("manual");
    expect((await scans.wait(scan.scan_id)).status).toBe("succeeded");

    const detail = await browse.metricDetail("gross_revenue");
    expect(detail.row).toMatchObject({ status: "unreliable", safe_to_use: false, tables: ["shop.orders"], failing_tests: 1 });
    expect(detail.results).toHaveLength(demo.testsByMetric.get("gross_revenue")!.length);
    expect(detail.results[0]).toMatchObject({ rule: "measure_not_null", status: "failing", rows_affected: 3, rows_total: 4000 });
    expect(detail.results.slice(1).every((r) => r.status === "passing")).toBe(true);
    expect(detail.results[0]!.sample_sql).toContain("LIMIT 10");
    expect(detail.history).toEqual([{ status: "unreliable", from: expect.any(String), to: null }]);
    expect(detail.derived.map((d) => [d.metric_name, d.status])).toEqual([["revenue_per_order", "unreliable"]]);

    const ratio = await browse.metricDetail("revenue_per_order");
    expect(ratio.inputs.map((i) => [i.metric_name, i.status])).toEqual([
      ["gross_revenue", "unreliable"],
      ["order_count", "healthy"],
    ]);
    await expect(browse.metricDetail("no_such_metric")).rejects.toMatchObject({ code: "not_found" });

    const health = await browse.scanHealth();
    expect(health).toMatchObject({
      statuses_from: { scan_id: scan.scan_id },
      last_finished: { scan_id: scan.scan_id, status: "succeeded", summary: { failing: expect.any(Number) } },
      running: null,
      failures_since_success: 0,
    });
  });

  it("gives a table's blast radius with each metric's status, derived metrics included", async () => {
    const orders = await browse.tableDetail("shop.orders");
    const byName = new Map(orders.affected.map((a) => [a.metric_name, a]));
    expect(byName.get("gross_revenue")).toMatchObject({ relationship: "base_table", status: "unreliable" });
    expect(byName.get("refund_amount")).toMatchObject({ relationship: "join", status: "degraded" });
    expect(byName.get("revenue_per_order")).toMatchObject({ relationship: "derived", status: "unreliable" });
    expect(orders.count).toBe(orders.affected.length);
    expect(orders.summary.total).toBe(orders.count);
    expect(await browse.tableDetail("nowhere.nothing")).toEqual({
      table: "nowhere.nothing",
      affected: [],
      count: 0,
      summary: { total: 0, healthy: 0, degraded: 0, unreliable: 0, unknown: 0 },
    });
  });

  it("says when scans fail, and keeps the statuses of the last success", async () => {
    const before = (await browse.scanHealth()).statuses_from;
    // A real ClickHouse client against a port nobody listens on: connection refused, retried, then the scan fails.
    const dead = createServerWarehouse({ url: `http://127.0.0.1:${await freePort()}`, name: "default", timeoutSeconds: 5 });
    const scans = testScanService(store, dead, () => demo, readModel);
    for (let i = 0; i < 2; i++) {
      const { scan } = await scans.trigger("schedule");
      expect((await scans.wait(scan.scan_id)).status).toBe("failed");
    }
    await dead.close();
    const health = await browse.scanHealth();
    expect(health.last_finished).toMatchObject({ status: "failed", trigger: "schedule", error: expect.stringContaining("127.0.0.1") });
    expect(health.failures_since_success).toBe(2);
    expect(health.statuses_from).toEqual(before);
    expect((await browse.metricDetail("gross_revenue")).row.status).toBe("unreliable");
  });

  it("reads the recent scans once per TTL, and reports a store that does not answer", async () => {
    let reads = 0;
    const counting: Pick<Store, "recentScans"> = {
      recentScans: (limit) => {
        reads += 1;
        return store.recentScans(limit);
      },
    };
    const cached = createBrowseService({ readModel, store: counting, scanHealthTtlMs: 60_000 });
    const answers = await Promise.all([cached.scanHealth(), cached.scanHealth(), cached.scanHealth()]);
    expect(reads).toBe(1);
    // the same answer, not a copy per page, while neither the scans read nor the view changed
    expect(await cached.scanHealth()).toBe(answers[2]);

    const other = await pglite.fresh();
    const closed = await createStore({ ...other.options, logger });
    await closed.close();
    const down = await createBrowseService({ readModel, store: closed, scanHealthTtlMs: 0 }).scanHealth();
    expect(down.store_error).toEqual(expect.any(String));
    expect(down.statuses_from).not.toBeNull();
    await other.drop();
  });
});
