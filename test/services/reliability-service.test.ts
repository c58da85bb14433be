import { describe, expect, it } from "vitest";
import { AppError } from "../../src/errors/app-error.js";
import type { ScanService } from "../../src/scan/types.js";
import { createReliabilityService } from "../../src/services/reliability-service.js";
import type { ScanRecord, Store } from "../../src/store/store.js";
import { ir, result, snapshot, stored } from "./fixtures.js";

const running: ScanRecord = { scan_id: "11111111-1111-4111-8111-111111111111", trigger: "schedule", status: "running", started_at: new Date("2024-05-01T10:00:00Z"), finished_at: null, error: null, summary: null };
const done: ScanRecord = { ...running, status: "succeeded", finished_at: new Date("2024-05-01T10:00:09Z"), summary: { total: 2, passing: 2, failing: 0, warning: 0 } };

// Only the Store methods the service reads; anything else would throw (and fail the test).
const fakeStore = (overrides: Partial<Store> = {}) =>
  ({
    latestStatuses: async () => [stored("gross_revenue", "healthy"), stored("gone", "unreliable")],
    latestStatus: async (m: string) => (m === "gross_revenue" ? stored(m, "unreliable") : null),
    latestResultsFor: async (m: string) => [result(m, "failing"), result(m, "passing")],
    statusHistory: async () => [],
    getScan: async (id: string) => (id === done.scan_id ? done : null),
    ...overrides,
  }) as unknown as Store;

const scanService = { trigger: async () => ({ scan: running, coalesced: true }), wait: async () => done } as unknown as ScanService;
const service = (store = fakeStore()) =>
  createReliabilityService({ getSnapshot: () => snapshot([ir({ name: "gross_revenue" }), ir({ name: "order_count" })]), store, scanService });

describe("reliability service", () => {
  it("merges store statuses with the catalogue", async () => {
    const listing = await service().status();
    expect(listing.summary).toEqual({ total: 2, healthy: 1, degraded: 0, unreliable: 0, unknown: 1 });
    expect(listing.metrics.map((m) => m.metric_name)).toEqual(["gross_revenue", "order_count"]);
  });

  it("answers one metric, 404 for a metric outside the catalogue", async () => {
    const view = await service().metricStatus("gross_revenue");
    expect(view).toMatchObject({ status: "unreliable", safe_to_use: false, failing_tests: [{ status: "failing" }] });
    await expect(service().metricStatus("gone")).rejects.toMatchObject({ code: "not_found", message: expect.stringContaining("gone") });
  });

  it("maps a store outage to unavailable", async () => {
    const broken = fakeStore({ latestStatuses: async () => Promise.reject(new Error("ECONNREFUSED 10.0.0.1")) });
    const error = await service(broken).status().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "unavailable", message: "the status store is unavailable" });
  });

  it("triggers (coalesced) and waits for scans", async () => {
    expect(await service().triggerScan({ wait: false })).toMatchObject({ scan_id: running.scan_id, status: "running", trigger: "schedule", coalesced: true, finished_at: null });
    expect(await service().triggerScan({ wait: true })).toMatchObject({ status: "succeeded", finished_at: "2024-05-01T10:00:09.000Z", summary: done.summary });
  });

  it("reads scans by id, 404 for unknown ids", async () => {
    expect(await service().getScan(done.scan_id)).toMatchObject({ scan_id: done.scan_id, status: "succeeded" });
    await expect(service().getScan("22222222-2222-4222-8222-222222222222")).rejects.toMatchObject({ code: "not_found" });
  });
});
