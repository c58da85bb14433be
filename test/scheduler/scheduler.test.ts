// Two replicas arm the same cron schedule on one store: every fire must start exactly one scan,
// elected through the store's run_claims table, with the real scan service and warehouse behind it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

/** The real scan service, counting the triggers it receives from its replica's scheduler. */
async function replica(store: Store): Promise<{ service: ScanService; triggers: () => number }> {
  const snapshot = await loadCatalogSnapshot(DEMO_METRICS_DIR);
  const service = testScanService(store, handle.warehouse, () => snapshot);
  let count = 0;
  const counting: ScanService = {
    ...service,
    trigger: (trigger) => {
      count += 1;
      return service.trigger(trigger);
    },
  };
  return { service: counting, triggers: () => count };
}

describe.each(targets)("scheduler on $name", (target) => {
  it("elects exactly one replica for each cron fire", async () => {
    const db = await target.fresh();
    // PGlite serves one process per data directory, so there both replicas share one store.
    const storeA = await createStore({ ...db.options, logger });
    const storeB = target.name === "postgres" ? await createStore({ ...db.options, logger }) : storeA;
    try {
      const a = await replica(storeA);
      const b = await replica(storeB);
      const schedulers = [
        startScheduler({ schedule: "* * * * * *", scanService: a.service, store: storeA, logger }),
        startScheduler({ schedule: "* * * * * *", scanService: b.service, store: storeB, logger }),
      ];
      await new Promise((resolve) => setTimeout(resolve, 4_500));
      await Promise.all(schedulers.map((s) => s.stop()));
      await a.service.stop();
      await b.service.stop();

      const fired = a.triggers() + b.triggers();
      expect(fired).toBeGreaterThanOrEqual(3);
      if (storeB !== storeA) await storeB.close();
      await storeA.close();
      const claims = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM run_claims WHERE name = 'reliability-scan'");
      // One claim per fire second, and one trigger per claim: no fire ran twice, none was lost.
      expect(claims[0]?.n).toBe(fired);
    } finally {
      await storeA.close().catch(() => {});
      if (storeB !== storeA) await storeB.close().catch(() => {});
      await db.drop();
    }
  }, 30_000);

  it("lets the first claimer of a fire time win and refuses the rest", async () => {
    const db = await target.fresh();
    const store = await createStore({ ...db.options, logger });
    try {
      const coordinator = storeRunCoordinator(store);
      const key = "reliability-scan:2026-11-23T10:15:00.000Z";
      const votes = await Promise.all(Array.from({ length: 8 }, () => coordinator.shouldRun(key, 60_000)));
      expect(votes.filter(Boolean)).toHaveLength(1);
      expect(await coordinator.shouldRun("reliability-scan:2026-11-23T10:30:00.000Z", 60_000)).toBe(true);
      await expect(coordinator.shouldRun("no-fire-time", 60_000)).rejects.toThrow(/unexpected coordination key/);
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
