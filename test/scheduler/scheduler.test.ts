// Two replicas arm the same cron schedule on one store: every fire must start exactly one scan,
// elected through the store's run_claims table, with the real scan service and warehouse behind it.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import pino from "pino";
import { DEMO_METRICS_DIR } from "../../src/config/config.js";
import { testScanService } from "../helpers/scan-service.js";
import type { ScanService } from "../../src/scan/types.js";
import { startScheduler, storeRunCoordinator } from "../../src/scheduler/scheduler.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { Store } from "../../src/store/store.js";
import { DEMO_DATABASE } from "../../src/warehouse/demo-dataset.js";
import { engines, seedDemo, type WarehouseHandle } from "../helpers/warehouses.js";
import { targets } from "../store/databases.js";

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

describe.each(targets)("scheduler on $name", (target) => {
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
      const schedulers = [
        startScheduler({ schedule: "* * * * * *", scanService: a.service, store: countingClaims(storeA, claims), logger }),
        startScheduler({ schedule: "* * * * * *", scanService: b.service, store: countingClaims(storeB, claims), logger }),
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
