import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpApp } from "../../src/api/http-app.js";
import type { AppRouter } from "../../src/api/trpc/router.js";
import { createMetrics } from "../../src/metrics/prometheus.js";
import type { ScanService } from "../../src/scan/types.js";
import { createCompilerService } from "../../src/services/compiler-service.js";
import { createReliabilityService } from "../../src/services/reliability-service.js";
import { createValidationService } from "../../src/services/validation-service.js";
import type { ScanRecord, Store } from "../../src/store/store.js";
import { ir, result, snapshot, stored } from "../services/fixtures.js";

const RW = "rw-key-0123456789abcdef";
const RO = "ro-key-0123456789abcdef";
const running: ScanRecord = { scan_id: "11111111-1111-4111-8111-111111111111", trigger: "manual", status: "running", started_at: new Date("2024-05-01T10:00:00Z"), finished_at: null, error: null, summary: null };
const done: ScanRecord = { ...running, status: "succeeded", finished_at: new Date("2024-05-01T10:00:09Z"), summary: { total: 1, passing: 1, failing: 0, warning: 0 } };

const snap = snapshot([ir({ name: "gross_revenue" }), ir({ name: "order_count", table: "shop.line_items" })]);
const getSnapshot = () => snap;
const scanService = {
  trigger: async () => ({ scan: running, coalesced: false }),
  wait: async () => done,
  run: async () => ({ scan: done, results: [result("gross_revenue", "passing")] }),
} as unknown as ScanService;
const store = {
  latestStatuses: async () => [stored("gross_revenue", "healthy")],
  latestStatus: async (m: string) => (m === "gross_revenue" ? stored(m, "healthy") : null),
  latestResultsFor: async () => [],
  statusHistory: async () => [],
  getScan: async (id: string) => (id === done.scan_id ? done : null),
} as unknown as Store;

let ready = false;
let server: Server;
let base: string;

beforeAll(async () => {
  const app = createHttpApp({
    services: {
      validation: createValidationService({ getSnapshot, scanService }),
      compiler: createCompilerService({ getSnapshot }),
      reliability: createReliabilityService({ getSnapshot, store, scanService }),
    },
    auth: { keys: [RW], readonlyKeys: [RO] },
    metrics: createMetrics(),
    isReady: () => ready,
    logger: pino({ level: "silent" }),
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const call = async (path: string, init: RequestInit & { key?: string } = {}) => {
  const headers = new Headers(init.headers);
  if (init.key) headers.set("Authorization", `Bearer ${init.key}`);
  const res = await fetch(base + path, { ...init, headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text.startsWith("{") ? JSON.parse(text) : text };
};

describe("REST", () => {
  it("serves open probes and /metrics without auth", async () => {
    expect((await call("/healthz")).status).toBe(200);
    expect(await call("/readyz")).toMatchObject({ status: 503, body: { error: { code: "unavailable" } } });
    ready = true;
    expect((await call("/readyz")).status).toBe(200);
    const metrics = await call("/metrics");
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("content-type")).toContain("text/plain");
  });

  it("answers 401 with WWW-Authenticate for a missing or wrong key", async () => {
    for (const key of [undefined, "wrong-key"]) {
      const res = await call("/v1/reliability/status", { key });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe("Bearer");
      expect(res.body).toEqual({ error: { code: "unauthorized", message: expect.any(String) } });
    }
  });

  it("forbids POST with a read-only key, allows GET", async () => {
    expect(await call("/v1/reliability/scan", { method: "POST", key: RO })).toMatchObject({ status: 403, body: { error: { code: "forbidden" } } });
    expect((await call("/v1/reliability/status", { key: RO })).status).toBe(200);
  });

  it("serves the endpoints with the documented shapes", async () => {
    expect((await call("/v1/validation/tests", { key: RW })).body).toMatchObject({ count: 2, tests: [{ metric: "gross_revenue", status: "pending" }, { metric: "order_count" }] });
    const ir = await call("/v1/compiler/ir", { key: RW });
    expect(ir.body).toMatchObject({ count: 2, compiled_at: "2024-05-01T09:00:00.000Z" });
    expect((await call("/v1/compiler/status", { key: RW })).text).toBe(ir.text);
    expect((await call("/v1/compiler/ir/gross_revenue", { key: RW })).body).toMatchObject({ name: "gross_revenue", kind: "structured" });
    expect((await call("/v1/reliability/status", { key: RW })).body.summary).toEqual({ total: 2, healthy: 1, degraded: 0, unreliable: 0, unknown: 1 });
    expect((await call("/v1/reliability/status/order_count", { key: RW })).body).toMatchObject({ status: "unknown", safe_to_use: false, scan_id: null });
    expect((await call("/v1/reliability/affected-by/shop.orders", { key: RW })).body).toEqual({
      table: "shop.orders", affected_metrics: [{ metric_name: "gross_revenue", relationship: "base_table" }], count: 1,
    });
    expect((await call("/v1/reliability/affected-by/shop.nothing", { key: RW })).body).toMatchObject({ affected_metrics: [], count: 0 });
    const run = await call("/v1/semantic-tests/run", { method: "POST", key: RW });
    expect(run.body).toMatchObject({ summary: { total: 1, passing: 1 }, ran_at: "2024-05-01T10:00:09.000Z" });
  });

  it("triggers scans: 202 running, 200 with ?wait=true, and reads them back", async () => {
    expect(await call("/v1/reliability/scan", { method: "POST", key: RW })).toMatchObject({ status: 202, body: { scan_id: running.scan_id, status: "running", trigger: "manual", started_at: "2024-05-01T10:00:00.000Z" } });
    expect(await call("/v1/reliability/scan?wait=true", { method: "POST", key: RW })).toMatchObject({ status: 200, body: { status: "succeeded" } });
    expect(await call("/v1/reliability/scan?wait=maybe", { method: "POST", key: RW })).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('"wait"') } } });
    expect(await call(`/v1/reliability/scans/${done.scan_id}`, { key: RW })).toMatchObject({ status: 200, body: { summary: done.summary } });
    expect((await call("/v1/reliability/scans/22222222-2222-4222-8222-222222222222", { key: RW })).status).toBe(404);
  });

  it("answers JSON 404 for unknown routes and metrics", async () => {
    expect(await call("/nope")).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
    expect(await call("/v1/compiler/ir/no_such_metric", { key: RW })).toMatchObject({ status: 404, body: { error: { message: expect.stringContaining("no_such_metric") } } });
  });

  it("answers hostile input with 400/404 JSON, never 500", async () => {
    const paths = [
      "/v1/compiler/ir/..%2F..%2Fetc%2Fpasswd",
      "/v1/reliability/status/%27%3B%20DROP%20TABLE%20x%3B--",
      `/v1/reliability/status/${"a".repeat(10_000)}`,
      "/v1/reliability/affected-by/shop.orders%3B%20DROP",
      "/v1/reliability/scans/..%2F..",
      "/v1/compiler/ir/%E0%A4%A",
      "/v1/compiler/ir/../../etc/passwd",
    ];
    for (const path of paths) {
      const res = await call(path, { key: RW });
      expect([400, 404], path).toContain(res.status);
      expect(res.body.error.code).toMatch(/^(bad_request|not_found)$/);
    }
    const malformed = await call("/v1/reliability/scan", { method: "POST", key: RW, headers: { "content-type": "application/json" }, body: "{nope" });
    expect(malformed).toMatchObject({ status: 400, body: { error: { code: "bad_request", message: "malformed JSON body" } } });
  });

  it("labels HTTP metrics with route patterns, never raw URLs", async () => {
    const text = (await call("/metrics")).text;
    expect(text).toContain('route="/v1/compiler/ir/:name"');
    expect(text).toContain('route="unmatched"');
    expect(text).not.toContain("no_such_metric");
    expect(text).not.toContain("DROP");
  });
});

describe("tRPC", () => {
  const client = (key?: string) =>
    createTRPCClient<AppRouter>({ links: [httpLink({ url: `${base}/trpc`, headers: () => (key ? { Authorization: `Bearer ${key}` } : {}) })] });

  it("returns the same bodies as REST", async () => {
    expect(await client(RW).compiler.irByName.query({ name: "gross_revenue" })).toEqual((await call("/v1/compiler/ir/gross_revenue", { key: RW })).body);
    expect(await client(RO).reliability.status.query()).toEqual((await call("/v1/reliability/status", { key: RW })).body);
    expect(await client(RW).reliability.affectedBy.query({ table: "shop.orders" })).toMatchObject({ count: 1 });
    expect(await client(RW).reliability.scan.mutate({ wait: true })).toMatchObject({ status: "succeeded" });
  });

  it("maps errors with data.appCode", async () => {
    const codes = async (p: Promise<unknown>) => {
      const error = await p.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TRPCClientError);
      const e = error as TRPCClientError<AppRouter>;
      return [e.data?.code, e.data?.appCode, e.message];
    };
    expect(await codes(client().reliability.status.query())).toEqual(["UNAUTHORIZED", "unauthorized", expect.any(String)]);
    expect(await codes(client(RO).reliability.scan.mutate())).toEqual(["FORBIDDEN", "forbidden", "this API key is read-only"]);
    expect(await codes(client(RW).compiler.irByName.query({ name: "nope" }))).toEqual(["NOT_FOUND", "not_found", 'metric "nope" not found']);
    expect(await codes(client(RW).compiler.irByName.query({ name: "../../etc" }))).toEqual(["BAD_REQUEST", "bad_request", expect.stringContaining('"name"')]);
  });

  it("sends WWW-Authenticate on 401", async () => {
    const res = await call("/trpc/reliability.status");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
    expect(res.text).not.toContain("stack");
  });
});
