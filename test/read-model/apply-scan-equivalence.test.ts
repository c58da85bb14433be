// After the daemon's own scan the read model applies what the scan wrote instead of reloading
// (read-model/apply-scan.ts). Here, with the real scan service over ClickHouse (the server, else the embedded engine) and a
// real store (PostgreSQL, and PGlite), the view after each applied scan must equal the view a
// full reload of the store builds, field by field and in what the services answer from it: for a
// first scan, a scan that changes statuses, one that changes nothing, and an incremental scan
// that keeps results of unchanged tables. A second read model, another replica's, follows each
// scan with refresh() as a notification makes it: from the rows the scan wrote (read-delta.ts),
// and must equal the full reload too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import type { ScanWrite } from "../../src/read-model/apply-scan.js";
import { createReadModel, type ReadModel, type ReadView } from "../../src/read-model/read-model.js";
import type { ScanService } from "../../src/scan/types.js";
import { createBrowseService } from "../../src/services/browse-service.js";
import { createReliabilityService } from "../../src/services/reliability-service.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { Store } from "../../src/store/store.js";
import { testScanService } from "../helpers/scan-service.js";
import { engines, uniqueDatabase, type WarehouseHandle } from "../helpers/warehouses.js";
import { incrementalCatalog, incrementalStatements } from "../scan/incremental-fixture.js";
import { type TestDatabase, storeTargets } from "../store/databases.js";

const HISTORY_LIMIT = 50;
// The ClickHouse server when CLICKHOUSE_URL is set (CI), else the embedded engine: a fresh clone's
// `npm test` has no server, and CI's run without servers covers the embedded one.
const engine = engines.find((e) => e.name === "server") ?? engines.find((e) => e.name === "embedded")!;

/** What services read from a view; built_at is when it was built, nothing the store holds. */
const content = (view: ReadView) => ({
  catalog_version: view.catalog.version,
  scan: view.scan,
  statuses: view.statuses,
  observations: view.observations,
  history: view.history,
  incidents: view.incidents,
});

describe.each(storeTargets)(`the read model after its own scans on ${engine.name} ClickHouse, on the $name store`, (target) => {
  const db = uniqueDatabase(`mr_apply_${target.name}`);
  let handle: WarehouseHandle;
  let snapshot: CatalogSnapshot;
  let testDb: TestDatabase;
  let store: Store;
  let model: ReadModel;
  /** another replica's view: refreshed after each scan, as its change listener does */
  let peer: ReadModel;
  const peerRefreshes: ("reload" | "delta")[] = [];
  const writes: { write: ScanWrite; outcome: "applied" | "reloaded" }[] = [];
  let full: ScanService;
  let incremental: ScanService;

  const serviceOn = (on: boolean) =>
    testScanService(store, handle.warehouse, () => snapshot, model, {
      incremental: on,
      afterScan: async (write) => writes.push({ write, outcome: await model.applyScan(write) }),
    });

  beforeAll(async () => {
    handle = await engine.open();
    for (const statement of incrementalStatements(db)) await handle.exec(statement);
    snapshot = await incrementalCatalog(db);
    testDb = await target.fresh();
    store = await createStore(testDb.options);
    model = createReadModel({ store, getSnapshot: () => snapshot, historyLimit: HISTORY_LIMIT });
    await model.refresh({ force: true }); // start-up: the empty store
    peer = createReadModel({
      store,
      getSnapshot: () => snapshot,
      historyLimit: HISTORY_LIMIT,
      onRefreshed: (how) => peerRefreshes.push(how),
    });
    await peer.refresh({ force: true });
    full = serviceOn(false);
    incremental = serviceOn(true);
  });

  afterAll(async () => {
    await full?.stop();
    await incremental?.stop();
    await store?.close();
    await testDb?.drop();
    await handle?.exec(`DROP DATABASE IF EXISTS ${db}`);
    await handle?.close();
  });

  /** Runs a scan, checks it was applied (not reloaded), and that a full reload sees the same. */
  async function scanAndCompare(service: ScanService): Promise<{ write: ScanWrite; before: ReadView; after: ReadView }> {
    const before = model.view();
    await service.run("manual");
    const { write, outcome } = writes.at(-1)!;
    expect(outcome).toBe("applied");
    const after = model.view();
    expect(after.scan?.scan_id).toBe(write.scan.scan_id);

    const reloaded = createReadModel({ store, getSnapshot: () => snapshot, historyLimit: HISTORY_LIMIT });
    await reloaded.refresh({ force: true });
    expect(content(after)).toEqual(content(reloaded.view()));

    // What the services answer from either view: the listing, every metric's status, its page.
    const answers = async (readModel: ReadModel) => {
      const reliability = createReliabilityService({ readModel, store, scanService: service });
      const browse = createBrowseService({ readModel, store });
      const names = snapshot.metrics.map((m) => m.name);
      return {
        listing: await reliability.status(),
        incidents: await Promise.all((await reliability.incidents()).incidents.map((i) => reliability.incident(i.id))),
        metrics: await Promise.all(names.map((name) => reliability.metricStatus(name))),
        details: await Promise.all(names.map((name) => browse.metricDetail(name))),
        // as_of is the view's built_at
        table: { ...(await browse.metricTable({ sort: "status", direction: "asc", page: 1, pageSize: 100 })), as_of: null },
      };
    };
    expect(await answers(model)).toEqual(await answers(reloaded));

    // The other replica: its first scan is a whole load (its view held none), later ones the delta.
    const peerBefore = peer.view();
    expect(await peer.refresh()).toBe(true);
    expect(peerRefreshes.at(-1)).toBe(peerBefore.scan ? "delta" : "reload");
    expect(content(peer.view())).toEqual(content(reloaded.view()));
    expect(await answers(peer)).toEqual(await answers(reloaded));
    return { write, before, after };
  }

  const statusesOf = (view: ReadView) => Object.fromEntries([...view.statuses].map(([name, s]) => [name, s.status]));

  it("applies the first scan onto the empty store's view", async () => {
    const { after } = await scanAndCompare(incremental);
    expect(after.statuses.size).toBe(snapshot.metrics.length);
    // The fixture has failing tests: incidents opened by this scan are in the applied view too.
    expect(after.incidents.length).toBeGreaterThan(0);
  });

  it("applies a scan that changes statuses", async () => {
    // Pings arrive (the table was empty), and most recent visits have no page count.
    await handle.exec(`INSERT INTO ${db}.pings SELECT number + 1, now() FROM numbers(10)`);
    await handle.exec(`INSERT INTO ${db}.visits SELECT number + 1000, now(), NULL FROM numbers(500)`);
    const { before, after } = await scanAndCompare(full);
    const changed = Object.entries(statusesOf(after)).filter(([name, value]) => statusesOf(before)[name] !== value);
    expect(changed.length).toBeGreaterThan(0);
    for (const [name] of changed) {
      expect(after.statuses.get(name)!.since).toEqual(after.scan!.finished_at);
      expect(after.history.get(name)![0]).toEqual({ status: after.statuses.get(name)!.status, from: after.scan!.finished_at, to: null });
      expect(after.history.get(name)![1]?.to).toEqual(after.scan!.finished_at);
    }
  });

  it("applies a scan that changes no status", async () => {
    const { before, after } = await scanAndCompare(full);
    expect(statusesOf(after)).toEqual(statusesOf(before));
    expect(after.history).toEqual(before.history);
  });

  it("applies an incremental scan that keeps the results of unchanged tables", async () => {
    await scanAndCompare(incremental); // the incremental service's previous pass is the store's now
    const { write } = await scanAndCompare(incremental);
    expect(write.unchanged?.size ?? 0).toBeGreaterThan(0);
  });

  it("reloads instead when another process's scan completed since the view was built", async () => {
    const other = createReadModel({ store, getSnapshot: () => snapshot, historyLimit: HISTORY_LIMIT });
    await other.refresh({ force: true });
    const otherService = testScanService(store, handle.warehouse, () => snapshot, undefined, {
      afterScan: (write) => other.applyScan(write),
    });
    await otherService.run("manual");
    await otherService.stop();
    // `model` still holds the scan before: its next scan's write cannot be applied onto it.
    await full.run("manual");
    expect(writes.at(-1)!.outcome).toBe("reloaded");
    const reloaded = createReadModel({ store, getSnapshot: () => snapshot, historyLimit: HISTORY_LIMIT });
    await reloaded.refresh({ force: true });
    expect(content(model.view())).toEqual(content(reloaded.view()));
    // The peer missed two scans (no notification): not one scan's rows, so a whole load.
    await peer.refresh();
    expect(peerRefreshes.at(-1)).toBe("reload");
    expect(content(peer.view())).toEqual(content(reloaded.view()));
  });
});
