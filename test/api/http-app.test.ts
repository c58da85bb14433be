// createHttpApp on the real services, the real store (PGlite) and the real scan service: the
// paths the end-to-end suite (test/e2e, through startDaemon) cannot reach — readiness before
// start-up completes, no scan yet, a warehouse that cannot be reached, and the store going away.
// The warehouse is the real ClickHouse server client pointed at a port nothing listens on.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpApp } from "../../src/api/http-app.js";
import type { AppRouter } from "../../src/api/trpc/router.js";
import { DEMO_METRICS_DIR } from "../../src/config/config.js";
import { createReadiness } from "../../src/health/readiness.js";
import { createLogger } from "../../src/logger.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { Store } from "../../src/store/store.js";
import { createServerWarehouse } from "../../src/warehouse/clickhouse-server.js";
import type { Warehouse } from "../../src/warehouse/warehouse.js";
import { testServices } from "../helpers/scan-service.js";
import { targets, type TestDatabase } from "../store/databases.js";

const RW = "rw-key-0123456789abcdef";
const RO = "ro-key-0123456789abcdef";
/** Every line the app logs, at debug and up, through the daemon's own logger configuration. */
const lines: Record<string, any>[] = [];
const logger = createLogger("debug", { write: (line: string) => void lines.push(JSON.parse(line)) });
const pglite = targets.find((t) => t.name === "pglite")!;

let db: TestDatabase;
let store: Store;
let warehouse: Warehouse;
let server: Server;
let base: string;
let ready = false;
let inferredTests: number;
let catalogued: number;

beforeAll(async () => {
  db = await pglite.fresh();
  store = await createStore({ ...db.options, logger });
  warehouse = createServerWarehouse({ name: "default", url: "http://127.0.0.1:1", timeoutSeconds: 5 });
  const snapshot = await loadCatalogSnapshot(DEMO_METRICS_DIR);
  inferredTests = snapshot.tests.length;
  catalogued = snapshot.metrics.length;
  const { readModel, services, metrics } = testServices(store, warehouse, () => snapshot, { logger });
  await readModel.refresh({ force: true });
  const app = createHttpApp({
    services,
    auth: { keys: [RW], readonlyKeys: [RO] },
    metrics,
    readiness: createReadiness({
      store,
      warehouses: new Map([["default", warehouse]]),
      isAccepting: () => ready,
      isLoaded: () => true,
      cacheMs: 0,
      onCheck: (report) => metrics.setDependencies(report),
    }),
    logger,
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await store?.close();
  await warehouse?.close();
  await db?.drop();
});

const call = async (path: string, init: { method?: string; key?: string } = {}) => {
  const res = await fetch(base + path, { method: init.method ?? "GET", headers: init.key ? { Authorization: `Bearer ${init.key}` } : {} });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text.startsWith("{") ? JSON.parse(text) : text };
};
const trpc = (key: string) =>
  createTRPCClient<AppRouter>({ links: [httpLink({ url: `${base}/trpc`, headers: () => ({ Authorization: `Bearer ${key}` }) })] });
const trpcError = async (call: () => Promise<unknown>) => {
  const error = (await call().then(
    () => null,
    (e: unknown) => e,
  )) as TRPCClientError<AppRouter>;
  expect(error).toBeInstanceOf(TRPCClientError);
  return { message: error.message, appCode: error.data?.appCode, httpStatus: error.data?.httpStatus };
};
const unavailable = (message: string | RegExp) => ({
  error: { code: "unavailable", message: typeof message === "string" ? message : expect.stringMatching(message) },
});

describe("HTTP app on the real services", () => {
  it("answers /readyz 503 until the app is ready; /healthz and /metrics at once", async () => {
    expect(await call("/healthz")).toMatchObject({ status: 200, body: { status: "ok" } });
    expect(await call("/readyz")).toMatchObject({
      status: 503,
      body: { error: { code: "unavailable", message: "not ready: starting or shutting down" }, status: "not_ready", store: null },
    });
    expect((await call("/metrics")).headers.get("content-type")).toContain("text/plain");
    ready = true;
    // The warehouse (nothing listens on its port) is down: shown, but the replica is ready.
    expect(await call("/readyz")).toMatchObject({
      status: 200,
      body: {
        status: "ready",
        store: { status: "up" },
        warehouses: { default: { status: "down", message: "the warehouse did not answer SELECT 1" } },
      },
    });
    const text = (await call("/metrics")).text;
    expect(text).toMatch(/^metric_reliability_store_up 1$/m);
    expect(text).toMatch(/^metric_reliability_warehouse_up\{datasource="default"\} 0$/m);
  });

  it("before any scan, every catalogue metric is unknown and not safe to use", async () => {
    const listing = await call("/v1/reliability/status", { key: RO });
    expect(listing.body.summary).toEqual({ total: catalogued, healthy: 0, degraded: 0, unreliable: 0, unknown: catalogued });
    for (const entry of listing.body.metrics)
      expect(entry).toEqual({ metric_name: entry.metric_name, status: "unknown", safe_to_use: false, checked_at: null, since: null });
    const one = await call("/v1/reliability/status/gross_revenue", { key: RO });
    expect(one.body).toEqual({
      metric_name: "gross_revenue",
      status: "unknown",
      safe_to_use: false,
      checked_at: null,
      since: null,
      scan_id: null,
      tests: { total: 0, passing: 0, failing: 0, warning: 0 },
      failing_tests: [],
      history: [],
    });
    expect(await trpc(RO).reliability.statusByName.query({ name: "gross_revenue" })).toEqual(one.body);
  });

  it("an unreachable warehouse fails the scan (503 for a test run), and statuses stay as they were", async () => {
    const run = await call("/v1/semantic-tests/run", { method: "POST", key: RW });
    expect(run.status).toBe(503);
    expect(run.body).toEqual(unavailable(/^scan [0-9a-f-]{36} failed: warehouse "default" unavailable: /));
    expect(await trpcError(() => trpc(RW).semanticTests.run.mutate())).toMatchObject({
      appCode: "unavailable",
      httpStatus: 503,
      message: expect.stringMatching(/warehouse "default" unavailable/),
    });

    const scan = await call("/v1/reliability/scan?wait=true", { method: "POST", key: RW });
    expect(scan.status).toBe(200);
    expect(scan.body).toMatchObject({
      status: "failed",
      trigger: "manual",
      coalesced: false,
      summary: null,
      error: expect.stringMatching(/^warehouse "default" unavailable: /),
    });
    const { coalesced: _coalesced, ...stored } = scan.body;
    expect((await call(`/v1/reliability/scans/${scan.body.scan_id}`, { key: RO })).body).toEqual(stored);
    expect((await call("/v1/reliability/status", { key: RO })).body.summary.unknown).toBe(catalogued);

    const text = (await call("/metrics")).text;
    expect(text).toContain('metric_reliability_scans_total{trigger="api_run",outcome="failed"} 2');
    expect(text).toContain('metric_reliability_scans_total{trigger="manual",outcome="failed"} 1');
  });

  it("labels HTTP metrics with route patterns, never raw URLs", async () => {
    await call("/v1/compiler/ir/no_such_metric", { key: RW });
    await call("/v1/reliability/status/%27%3B%20DROP", { key: RW });
    const text = (await call("/metrics")).text;
    expect(text).toContain('route="/v1/compiler/ir/:name"');
    expect(text).toContain('route="/trpc"');
    expect(text).not.toContain("no_such_metric");
    expect(text).not.toContain("DROP");
  });

  it("when the store goes away, statuses are served from memory and store-backed calls answer 503 JSON", async () => {
    const statuses = await call("/v1/reliability/status", { key: RO });
    await store.close();
    const gone = "the status store is unavailable";
    // The read model keeps the last statuses: circuit breakers keep their answer through a store outage.
    expect(await call("/v1/reliability/status", { key: RO })).toMatchObject({ status: 200, body: statuses.body });
    expect((await call("/v1/reliability/status/gross_revenue", { key: RO })).status).toBe(200);
    expect(await trpc(RO).reliability.status.query()).toEqual(statuses.body);
    expect(await call("/v1/reliability/scans/00000000-0000-4000-8000-000000000000", { key: RO })).toMatchObject({
      status: 503,
      body: unavailable(gone),
    });
    expect(await call("/v1/reliability/scan", { method: "POST", key: RW })).toMatchObject({
      status: 503,
      body: unavailable(/^cannot record the scan: the store is unavailable/),
    });
    expect(await trpcError(() => trpc(RO).reliability.scanById.query({ id: "00000000-0000-4000-8000-000000000000" }))).toEqual({
      message: gone,
      appCode: "unavailable",
      httpStatus: 503,
    });
    // Not store-backed: the catalogue, the probes, and a metric outside the catalogue.
    expect((await call("/v1/compiler/ir", { key: RO })).status).toBe(200);
    expect((await call("/v1/validation/tests", { key: RO })).body.count).toBe(inferredTests);
    expect((await call("/v1/reliability/status/no_such_metric", { key: RO })).status).toBe(404);
    expect((await call("/v1/reliability/affected-by/shop.orders", { key: RO })).body.count).toBe(7);
    expect((await call("/healthz")).status).toBe(200);
    // Still ready (it serves the statuses above from memory), saying the store is down.
    expect(await call("/readyz")).toMatchObject({
      status: 200,
      body: { status: "ready", store: { status: "down", message: "the store did not answer SELECT 1" } },
    });
    expect((await call("/metrics")).text).toMatch(/^metric_reliability_store_up 0$/m);
  });

  it("logs an outage's cause once, not once per wrapping error", () => {
    const failed = lines.filter((l) => l.msg === "scan failed");
    expect(failed.length).toBeGreaterThan(0);
    for (const line of failed) {
      const text = JSON.stringify(line);
      expect(text.split("connect ECONNREFUSED 127.0.0.1:1").length - 1).toBe(1);
      expect(line.err.message).toMatch(/^warehouse "default" unavailable: .*connect ECONNREFUSED 127\.0\.0\.1:1$/);
      // The causes keep their type and data, and their frames, without repeating the text.
      expect(line.err.cause).toMatchObject({ type: "WarehouseError", kind: "connection" });
      expect(line.err.cause.message).toBeUndefined();
      expect(line.err.stack).toMatch(/^\s+at /);
    }
  });

  it("logs one line per request: method, path (tRPC with its /trpc prefix) and status, never keys or queries", async () => {
    lines.length = 0;
    // (The store is gone by now: these endpoints need only the catalogue.)
    await call("/v1/reliability/affected-by/shop.orders?secret=query", { key: RO });
    await trpc(RW).reliability.affectedBy.query({ table: "shop.orders" });
    await call("/healthz");
    await call("/v1/compiler/ir/no_such_metric", { key: RW });
    const requests = lines.filter((l) => l.msg === "request");
    expect(requests.map((l) => [l.level, l.req.method, l.req.path, l.res.status])).toEqual([
      [20, "GET", "/v1/reliability/affected-by/shop.orders", 200],
      [20, "GET", "/trpc/reliability.affectedBy", 200],
      [20, "GET", "/healthz", 200],
      [30, "GET", "/v1/compiler/ir/no_such_metric", 404],
    ]);
    for (const line of requests) {
      expect(Object.keys(line.req).sort()).toEqual(["method", "path"]);
      expect(Number.isInteger(line.responseTime)).toBe(true);
    }
    const all = JSON.stringify(lines);
    for (const secret of [RW, RO, "secret=query", "input="]) expect(all).not.toContain(secret);
  });
});
