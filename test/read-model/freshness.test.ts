// "At least scan X" (read-model/freshness.ts) on a real store: a replica's read model that has not
// taken in another replica's scan refreshes first; a scan still running, or one the store cannot
// be asked about, is a 503 with Retry-After, never the older view; an unknown scan is not found.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { createFreshness, reflects } from "../../src/read-model/freshness.js";
import { createReadModel, type ReadModel } from "../../src/read-model/read-model.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { ScanRecord, Store } from "../../src/store/store.js";
import { finished, observation, status, test as inferred } from "../store/fixtures.js";
import { type TestDatabase, storeTargets } from "../store/databases.js";

const tests = [inferred("orders_total", "amount_not_null")];
const snapshot = { version: "v1", testsByMetric: new Map([["orders_total", tests]]) } as unknown as CatalogSnapshot;

describe.each(storeTargets)("at least a scan, on the $name store", (target) => {
  let db: TestDatabase;
  let store: Store;
  let replica: ReadModel;
  const refreshed: string[] = [];

  const scanOnAnotherReplica = async (id: string, value: "healthy" | "degraded") => {
    await store.createScan({ scan_id: id, trigger: "manual", started_at: new Date() });
    return store.completeScan(finished(id, tests, { [tests[0]!.key]: observation() }, [status("orders_total", value)]));
  };

  beforeAll(async () => {
    db = await target.fresh();
    store = await createStore(db.options);
    replica = createReadModel({ store, getSnapshot: () => snapshot, historyLimit: 10, onRefreshed: (how) => refreshed.push(how) });
    await replica.refresh({ force: true });
  });

  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it("refreshes first when the replica has not applied the scan, then answers from it", async () => {
    const freshness = createFreshness({ readModel: replica, store });
    const first = await scanOnAnotherReplica("scan-a", "healthy");
    expect(replica.view().scan).toBeNull();
    await freshness.atLeast(first.scan_id);
    expect(replica.view().scan?.scan_id).toBe("scan-a");
    expect(replica.view().statuses.get("orders_total")?.status).toBe("healthy");

    const second = await scanOnAnotherReplica("scan-b", "degraded");
    await freshness.atLeast(second.scan_id);
    expect(replica.view().scan?.scan_id).toBe("scan-b");
    expect(replica.view().statuses.get("orders_total")?.status).toBe("degraded");
    expect(refreshed).toEqual(["reload", "reload", "delta"]);
    // An older scan is already reflected: no store read at all.
    await freshness.atLeast("scan-a");
    expect(refreshed).toHaveLength(3);
  });

  it("a running scan is 503 with Retry-After (nothing asked with ifFinished); an unknown one 404", async () => {
    const freshness = createFreshness({ readModel: replica, store });
    await store.createScan({ scan_id: "scan-running", trigger: "manual", started_at: new Date() });
    await expect(freshness.atLeast("scan-running")).rejects.toMatchObject({ code: "unavailable", headers: { "Retry-After": "1" } });
    await expect(freshness.atLeast("scan-running", { ifFinished: true })).resolves.toBeUndefined();
    await expect(freshness.atLeast("no-such-scan")).rejects.toMatchObject({ code: "not_found" });
    // Failed: it changed nothing; reflected once the view was refreshed after it.
    await store.failScan("scan-running", new Date(), "warehouse down");
    await expect(createFreshness({ readModel: replica, store }).atLeast("scan-running")).resolves.toBeUndefined();
  });

  it("a store that cannot be asked is 503, not the older view", async () => {
    const broken = { getScan: () => Promise.reject(new Error("connection refused")) };
    await expect(createFreshness({ readModel: replica, store: broken }).atLeast("scan-z")).rejects.toMatchObject({
      code: "unavailable",
      headers: { "Retry-After": "1" },
    });
    const stale = { view: () => replica.view(), refresh: () => Promise.reject(new Error("store down")) };
    const newer = await scanOnAnotherReplica("scan-c", "healthy");
    await expect(createFreshness({ readModel: stale, store }).atLeast(newer.scan_id)).rejects.toMatchObject({ code: "unavailable" });
  });
});

describe("reflects: the store's order of succeeded scans", () => {
  const scan = (id: string, finishedMs: number | null, state: ScanRecord["status"] = "succeeded"): ScanRecord => ({
    scan_id: id,
    trigger: "manual",
    status: state,
    started_at: new Date(0),
    finished_at: finishedMs === null ? null : new Date(finishedMs),
    error: null,
    summary: null,
    catalog_version: null,
  });

  it("by finished_at; the same millisecond only once refreshed; failed scans once refreshed", () => {
    expect(reflects({ scan: scan("b", 2_000) }, scan("a", 1_000), { refreshed: false })).toBe(true);
    expect(reflects({ scan: scan("a", 1_000) }, scan("b", 2_000), { refreshed: true })).toBe(false);
    expect(reflects({ scan: scan("a", 1_000) }, scan("a", 1_000), { refreshed: false })).toBe(true);
    expect(reflects({ scan: scan("a", 1_000) }, scan("b", 1_000), { refreshed: false })).toBe(false);
    expect(reflects({ scan: scan("a", 1_000) }, scan("b", 1_000), { refreshed: true })).toBe(true);
    expect(reflects({ scan: null }, scan("b", 1_000), { refreshed: true })).toBe(false);
    expect(reflects({ scan: null }, scan("f", 1_000, "failed"), { refreshed: false })).toBe(false);
    expect(reflects({ scan: null }, scan("f", 1_000, "failed"), { refreshed: true })).toBe(true);
  });
});
