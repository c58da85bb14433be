// The reliability service on the real store (PGlite), the real scan service and the real embedded
// warehouse seeded with the demo shop: catalogue/store merging, scans, history, Prometheus gauges,
// and what a store outage turns into.
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_METRICS_DIR } from "../../src/config/config.js";
import { createMetrics } from "../../src/metrics/prometheus.js";
import type { ReadModel } from "../../src/read-model/read-model.js";
import { testReadModel, testScanService } from "../helpers/scan-service.js";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { makeSnapshot } from "../../src/infer/catalog-snapshot.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import { createReliabilityService } from "../../src/services/reliability-service.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { Store } from "../../src/store/store.js";
import { DEMO_DATABASE } from "../../src/warehouse/demo-dataset.js";
import { EXPECTED_RUN_SUMMARY, EXPECTED_STATUS, EXPECTED_SUMMARY, METRICS } from "../e2e/expected.js";
import { engines, seedDemo, type WarehouseHandle } from "../helpers/warehouses.js";
import { targets, type TestDatabase } from "../store/databases.js";

const logger = pino({ level: "silent" });
const embedded = engines.find((e) => e.name === "embedded")!;
const pglite = targets.find((t) => t.name === "pglite")!;

let handle: WarehouseHandle;
let db: TestDatabase;
let store: Store;
let demo: CatalogSnapshot;
/** what the services see as the catalogue; tests swap it */
let catalogue: CatalogSnapshot;
let service: ReturnType<typeof createReliabilityService>;
let shortHistory: ReturnType<typeof createReliabilityService>;
let readModel: ReadModel;
/** a second replica's read model, keeping one status period per metric */
let shortModel: ReadModel;

beforeAll(async () => {
  handle = await embedded.open();
  await seedDemo(handle, DEMO_DATABASE);
  db = await pglite.fresh();
  store = await createStore({ ...db.options, logger });
  demo = await loadCatalogSnapshot(DEMO_METRICS_DIR);
  catalogue = demo;
  const getSnapshot = () => catalogue;
  readModel = testReadModel(store, getSnapshot);
  shortModel = testReadModel(store, getSnapshot, 1);
  await readModel.refresh({ force: true });
  const scanService = testScanService(store, handle.warehouse, getSnapshot, readModel);
  service = createReliabilityService({ readModel, store, scanService });
  shortHistory = createReliabilityService({ readModel: shortModel, store, scanService });
});

afterAll(async () => {
  await store?.close();
  await db?.drop();
  await handle?.close();
});

describe("reliability service", () => {
  it("before any scan, lists every catalogue metric as unknown", async () => {
    const listing = await service.status();
    expect(listing.summary).toEqual({ total: METRICS.length, healthy: 0, degraded: 0, unreliable: 0, unknown: METRICS.length });
    expect(listing.metrics.map((m) => m.metric_name)).toEqual(demo.metrics.map((m) => m.name));
    expect(await service.metricStatus("gross_revenue")).toMatchObject({
      status: "unknown",
      safe_to_use: false,
      scan_id: null,
      failing_tests: [],
      history: [],
    });
  });

  it("triggers a scan (others join it while it runs) and waits for its result", async () => {
    const [a, b, waited] = await Promise.all([
      service.triggerScan({ wait: false }),
      service.triggerScan({ wait: false }),
      service.triggerScan({ wait: true }),
    ]);
    expect(new Set([a.scan_id, b.scan_id, waited.scan_id]).size).toBe(1);
    expect([a, b, waited].filter((s) => !s.coalesced)).toHaveLength(1);
    expect(a).toMatchObject({ status: "running", trigger: "manual", finished_at: null, summary: null });
    expect(waited).toMatchObject({ status: "succeeded", summary: EXPECTED_RUN_SUMMARY, error: null });
    const { coalesced: _coalesced, ...scan } = waited;
    expect(await service.getScan(a.scan_id)).toEqual(scan);
    // The joiners wrote no scan rows of their own that would stay `running` for ever.
    expect(await store.getRunningScan()).toBeNull();
  });

  it("merges the stored statuses with the catalogue", async () => {
    const listing = await service.status();
    expect(listing.summary).toEqual(EXPECTED_SUMMARY);
    for (const m of listing.metrics) expect(m.status, m.metric_name).toBe(EXPECTED_STATUS[m.metric_name]);
    // A metric removed from the catalogue disappears, though the store still has its status.
    catalogue = {
      ...demo,
      metrics: demo.metrics.filter((m) => m.name !== "page_views"),
      metricsByName: new Map([...demo.metricsByName].filter(([name]) => name !== "page_views")),
    };
    await readModel.refresh();
    try {
      expect((await service.status()).summary).toEqual({
        ...EXPECTED_SUMMARY,
        total: EXPECTED_SUMMARY.total - 1,
        healthy: EXPECTED_SUMMARY.healthy - 1,
      });
      await expect(service.metricStatus("page_views")).rejects.toMatchObject({
        code: "not_found",
        message: 'metric "page_views" not found',
      });
    } finally {
      catalogue = demo;
      await readModel.refresh();
    }
  });

  it("keeps the status history, newest first, and the failing tests of the latest scan", async () => {
    const first = await service.metricStatus("stock_on_hand");
    expect(first.failing_tests.map((t) => [t.rule, t.status, t.rows_affected])).toEqual([["freshness", "failing", 1]]);
    // Without its freshness test, stock_on_hand is healthy: a new status period begins.
    const tests = demo.tests.filter((t) => !(t.metric === "stock_on_hand" && t.rule === "freshness"));
    catalogue = makeSnapshot({ ...demo, tests });
    try {
      const scan = await service.triggerScan({ wait: true });
      const view = await service.metricStatus("stock_on_hand");
      expect(view).toMatchObject({
        status: "healthy",
        safe_to_use: true,
        scan_id: scan.scan_id,
        checked_at: scan.finished_at,
        since: scan.finished_at,
        failing_tests: [],
      });
      expect(view.history).toEqual([
        { status: "healthy", from: scan.finished_at, to: null },
        { status: "unreliable", from: first.since, to: scan.finished_at },
      ]);
      // another replica sees the newer scan on its next sweep
      expect(await shortModel.refresh()).toBe(true);
      expect(await shortModel.refresh()).toBe(false);
      expect((await shortHistory.metricStatus("stock_on_hand")).history).toEqual([view.history[0]]);
      // Unchanged metrics keep their period.
      expect(await service.metricStatus("gross_revenue")).toMatchObject({
        status: "unreliable",
        since: first.since,
        history: [{ to: null }],
      });
    } finally {
      catalogue = demo;
    }
  });

  it("refreshes the Prometheus gauges from the read model", async () => {
    const metrics = createMetrics();
    await service.refreshMetrics(metrics);
    const text = await metrics.text();
    expect(text).toContain('metric_reliability_status{metric="stock_on_hand",status="healthy"} 1');
    // shop.orders' open incident explains gross_revenue's failing test: its series carry the table.
    expect(text).toContain('metric_reliability_status{metric="gross_revenue",status="unreliable",table="shop.orders"} 1');
    expect(text).toMatch(/^metric_reliability_incident_open\{table="shop.orders"\} [1-9]/m);
    expect(text).toContain('metric_reliability_safe_to_use{metric="gross_revenue"} 0');
    // The last scan fixed stock_on_hand's freshness: one failing test fewer than the demo's.
    expect(text).toContain(`metric_reliability_tests{status="failing"} ${EXPECTED_RUN_SUMMARY.failing - 1}`);
  });

  it("rebuilds the status gauges only when a status or an incident's table label changed", async () => {
    const metrics = createMetrics();
    const setStatuses = metrics.setStatuses.bind(metrics);
    let built = 0;
    metrics.setStatuses = (entries) => {
      built += 1;
      setStatuses(entries);
    };
    await service.triggerScan({ wait: true });
    await service.refreshMetrics(metrics);
    const before = await metrics.text();
    // The same data scanned again: every status as it was, only checked_at moves.
    await service.triggerScan({ wait: true });
    await service.refreshMetrics(metrics);
    expect(built).toBe(1);
    expect(await metrics.text()).toContain('metric_reliability_status{metric="gross_revenue",status="unreliable",table="shop.orders"} 1');
    expect((await metrics.text()).match(/^metric_reliability_status\{.*$/gm)).toEqual(before.match(/^metric_reliability_status\{.*$/gm));
    // Another registry has its own gauges to set.
    const other = createMetrics();
    await service.refreshMetrics(other);
    expect((await other.text()).match(/^metric_reliability_status\{.*$/gm)).toEqual(before.match(/^metric_reliability_status\{.*$/gm));
  });

  it("answers not_found for an unknown scan", async () => {
    await expect(service.getScan("22222222-2222-4222-8222-222222222222")).rejects.toMatchObject({
      code: "not_found",
      message: expect.stringContaining("22222222"),
    });
  });

  it("serves the last statuses from memory through a store outage; store reads map to unavailable", async () => {
    const before = await service.status();
    const gross = await service.metricStatus("gross_revenue");
    await store.close();
    const unavailable = { code: "unavailable", message: "the status store is unavailable" };
    await expect(readModel.refresh()).rejects.toThrow();
    expect(await service.status()).toEqual(before);
    expect(await service.metricStatus("gross_revenue")).toEqual(gross);
    await expect(service.getScan("22222222-2222-4222-8222-222222222222")).rejects.toMatchObject(unavailable);
    await expect(service.triggerScan({ wait: false })).rejects.toMatchObject({
      code: "unavailable",
      message: expect.stringMatching(/^cannot record the scan/),
    });
    await expect(service.metricStatus("no_such_metric")).rejects.toMatchObject({ code: "not_found" });
    expect((await service.affectedBy("shop.inventory")).affected_metrics).toEqual([
      { metric_name: "stock_on_hand", relationship: "base_table" },
    ]);
  });
});
