// Two replicas arm the same cron schedule on one store: every fire must start exactly one scan,
// elected through the store's run_claims table, with the real scan service and warehouse behind it.
// A fire that starts no scan is counted by reason (metric_reliability_scan_skipped_total).
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import pino from "pino";
import { DEMO_METRICS_DIR } from "../../src/config/config.js";
import { createMetrics, SKIP_REASONS, type Metrics } from "../../src/metrics/prometheus.js";
import { testScanService } from "../helpers/scan-service.js";
import type { ScanService } from "../../src/scan/types.js";
import { startScheduler, storeRunCoordinator } from "../../src/scheduler/scheduler.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { Store } from "../../src/store/store.js";
import { createServerWarehouse } from "../../src/warehouse/clickhouse-server.js";
import { DEMO_DATABASE } from "../../src/warehouse/demo-dataset.js";
import { engines, seedDemo, type WarehouseHandle } from "../helpers/warehouses.js";
import { targets, storeTargets } from "../store/databases.js";

const logger = pino({ level: "silent" });
const embedded = engines.find((e) => e.name === "embedded")!;

let handle: WarehouseHandle;
beforeAll(async () => {
  handle = await embedded.open();
  await seedDemo(handle, DEMO_DATABASE);
});
afterAll(() => handle.close());

// Captured before any test fakes the clock.
const realSetTimeout = globalThis.setTimeout;

/** The real scan service, counting the triggers its replica's scheduler sends (and those answered). */
async function replica(store: Store): Promise<{ service: ScanService; triggers: () => number; done: () => number }> {
  const snapshot = await loadCatalogSnapshot(DEMO_METRICS_DIR);
  const service = testScanService(store, handle.warehouse, () => snapshot);
  let count = 0;
  let answered = 0;
  const counting: ScanService = {
    ...service,
    trigger: async (trigger) => {
      count += 1;
      try {
        return await service.trigger(trigger);
      } finally {
        answered += 1;
      }
    },
  };
  return { service: counting, triggers: () => count, done: () => answered };
}

/** The store, counting the cron claims it has answered (won or lost). */
function countingClaims(store: Store, claims: { settled: number }): Store {
  const counted: Store = Object.create(store);
  counted.claimRun = async (name, fireTime) => {
    try {
      return await store.claimRun(name, fireTime);
    } finally {
      claims.settled += 1;
    }
  };
  return counted;
}

/** Polls `done` in real time (the I/O behind a fire is real), failing after 20 s. */
async function until(done: () => boolean, sleep: (ms: number) => Promise<unknown>): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > 20_000) throw new Error("a cron fire did not settle");
    await sleep(10);
  }
  // Let node-cron finish its bookkeeping of the execution before the next fire.
  await sleep(10);
}

/** metric_reliability_scan_skipped_total by reason, read from the exposition text. */
async function skippedCounts(metrics: Metrics): Promise<Record<string, number>> {
  const text = await metrics.registry.metrics();
  const counts: Record<string, number> = {};
  for (const reason of SKIP_REASONS) {
    const line = text.split("\n").find((l) => l.startsWith(`metric_reliability_scan_skipped_total{reason="${reason}"} `));
    counts[reason] = line === undefined ? Number.NaN : Number(line.split(" ")[1]);
  }
  return counts;
}

describe.each(storeTargets)("scheduler on $name", (target) => {
  it("elects exactly one replica for each cron fire", async () => {
    const db = await target.fresh();
    // PGlite serves one process per data directory, so there both replicas share one store.
    const storeA = await createStore({ ...db.options, logger });
    const storeB = target.name === "postgres" ? await createStore({ ...db.options, logger }) : storeA;
    // The clock is faked (node-cron reads Date and arms setTimeout), so every fire happens when
    // the test says; the claims and scans behind it are real I/O, awaited in real time.
    const realSleep = (ms: number) => new Promise((resolve) => setImmediate(() => realSetTimeout(resolve, ms)));
    const claims = { settled: 0 };
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: new Date("2026-11-25T10:00:00.500Z") });
    try {
      const a = await replica(storeA);
      const b = await replica(storeB);
      const [metricsA, metricsB] = [createMetrics(), createMetrics()];
      const schedulers = [
        startScheduler({
          schedule: "* * * * * *",
          scanService: a.service,
          store: countingClaims(storeA, claims),
          logger,
          metrics: metricsA,
        }),
        startScheduler({
          schedule: "* * * * * *",
          scanService: b.service,
          store: countingClaims(storeB, claims),
          logger,
          metrics: metricsB,
        }),
      ];
      const FIRES = 3;
      for (let fire = 1; fire <= FIRES; fire += 1) {
        // To the next whole second: both replicas' timers fire and race for the claim.
        await vi.advanceTimersByTimeAsync(1_000);
        await until(() => claims.settled === 2 * fire && a.done() + b.done() === fire, realSleep);
      }
      vi.useRealTimers();
      await Promise.all(schedulers.map((s) => s.stop()));
      await a.service.stop();
      await b.service.stop();

      // One trigger per fire, each by exactly one replica, and one claim row per fire time.
      expect(a.triggers() + b.triggers()).toBe(FIRES);
      // The loser of each fire counts it as not elected. (The fake clock fires faster than scans
      // finish, so a winner's fire may join the running scan: already_running is not asserted.)
      const skippedA = await skippedCounts(metricsA);
      const skippedB = await skippedCounts(metricsB);
      expect(skippedA.not_elected! + skippedB.not_elected!).toBe(FIRES);
      expect(skippedA.not_elected).toBe(b.triggers());
      expect(skippedA.store_unavailable! + skippedB.store_unavailable! + skippedA.missed! + skippedB.missed!).toBe(0);
      // PGlite serves one process per data directory: read the claims once the stores are closed.
      if (storeB !== storeA) await storeB.close();
      await storeA.close();
      const rows = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM run_claims WHERE name = 'reliability-scan'");
      expect(rows[0]?.n).toBe(FIRES);
    } finally {
      vi.useRealTimers();
      await storeA.close().catch(() => {});
      if (storeB !== storeA) await storeB.close().catch(() => {});
      await db.drop();
    }
  });

  it("lets the first claimer of a fire time win and refuses the rest", async () => {
    const db = await target.fresh();
    const store = await createStore({ ...db.options, logger });
    try {
      const coordinator = storeRunCoordinator(store);
      const key = "reliability-scan:2026-11-23T10:15:00.000Z";
      const votes = await Promise.all(Array.from({ length: 8 }, async () => coordinator.shouldRun(key, 60_000)));
      expect(votes.filter(Boolean)).toHaveLength(1);
      expect(await coordinator.shouldRun("reliability-scan:2026-11-23T10:30:00.000Z", 60_000)).toBe(true);
      await expect(coordinator.shouldRun("no-fire-time", 60_000)).rejects.toThrow(/unexpected coordination key/);
    } finally {
      await store.close();
      await db.drop();
    }
  });
});

/** Polls in real time until `done` holds, failing after 20 s. */
async function eventually(what: string, done: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 20_000; !(await done());) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => realSetTimeout(resolve, 50));
  }
}

// A schedule that fires every second, in real time: each fire below is a real claim in the store.
// What is counted does not depend on the store's kind: one target (PostgreSQL when there is one).
describe.each(targets.slice(-1))("fires that start no scan are counted, on $name", (target) => {
  let silent: Server;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    // A warehouse that accepts connections and never answers: a scan on it runs until stopped.
    silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it("already_running: a fire while a scan runs joins it and starts nothing", async () => {
    const db = await target.fresh();
    const store = await createStore({ ...db.options, logger });
    const hanging = createServerWarehouse({
      name: "default",
      url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      timeoutSeconds: 60,
    });
    const snapshot = await loadCatalogSnapshot(DEMO_METRICS_DIR);
    const service = testScanService(store, hanging, () => snapshot);
    const metrics = createMetrics();
    try {
      const { scan } = await service.trigger("manual");
      const scheduler = startScheduler({ schedule: "* * * * * *", scanService: service, store, logger, metrics });
      await eventually("two fires joining the running scan", async () => (await skippedCounts(metrics)).already_running! >= 2);
      await scheduler.stop();
      expect(await skippedCounts(metrics)).toMatchObject({ store_unavailable: 0, not_elected: 0 });
      // Still the one scan the manual trigger started.
      expect(await store.getRunningScan()).toMatchObject({ scan_id: scan.scan_id });
    } finally {
      await service.stop();
      await hanging.close();
      await store.close();
      await db.drop();
    }
  });

  it("store_unavailable: fires while the store is gone cannot be elected or recorded", async () => {
    const db = await target.fresh();
    const store = await createStore({ ...db.options, logger });
    const snapshot = await loadCatalogSnapshot(DEMO_METRICS_DIR);
    const service = testScanService(store, handle.warehouse, () => snapshot);
    const metrics = createMetrics();
    try {
      await store.close();
      const scheduler = startScheduler({ schedule: "* * * * * *", scanService: service, store, logger, metrics });
      await eventually("two fires skipped for the store", async () => (await skippedCounts(metrics)).store_unavailable! >= 2);
      await scheduler.stop();
      expect(await skippedCounts(metrics)).toMatchObject({ already_running: 0, not_elected: 0 });
      expect(await metrics.registry.metrics()).toMatch(/^metric_reliability_scans_total\{trigger="schedule",outcome="failed"\} 0$/m);
    } finally {
      await service.stop();
      await db.drop();
    }
  });

  it("missed: a fire whose time passed while the event loop was blocked", async () => {
    const db = await target.fresh();
    const store = await createStore({ ...db.options, logger });
    const snapshot = await loadCatalogSnapshot(DEMO_METRICS_DIR);
    const service = testScanService(store, handle.warehouse, () => snapshot);
    const metrics = createMetrics();
    try {
      const scheduler = startScheduler({ schedule: "* * * * * *", scanService: service, store, logger, metrics });
      // Blocks the loop past node-cron's tolerance (1 s) for the next fire.
      for (const end = Date.now() + 2_500; Date.now() < end;);
      await eventually("a missed fire", async () => (await skippedCounts(metrics)).missed! >= 1);
      await scheduler.stop();
    } finally {
      await service.stop();
      await store.close();
      await db.drop();
    }
  });
});
