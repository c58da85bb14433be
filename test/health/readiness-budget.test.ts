// A warehouse that accepts connections and never answers (a black-holed host) must not stall
// /readyz past a probe's timeout: the check gives each dependency READINESS_PING_BUDGET_MS.
// The verdict follows the process (accepting, read model loaded), never a dependency's answer.
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReadiness, READINESS_PING_BUDGET_MS } from "../../src/health/readiness.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { Store } from "../../src/store/store.js";
import { createServerWarehouse } from "../../src/warehouse/clickhouse-server.js";
import type { Warehouse } from "../../src/warehouse/warehouse.js";
import { targets, type TestDatabase } from "../store/databases.js";

describe("readiness with a warehouse that never answers", () => {
  let silent: Server;
  const sockets: Socket[] = [];
  let db: TestDatabase;
  let store: Store;
  let warehouse: Warehouse;

  beforeAll(async () => {
    silent = createServer((socket) => void sockets.push(socket)); // reads nothing, answers nothing
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    db = await targets.find((t) => t.name === "pglite")!.fresh();
    store = await createStore(db.options);
    warehouse = createServerWarehouse({
      name: "default",
      url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      timeoutSeconds: 30,
    });
  });
  afterAll(async () => {
    await warehouse?.close();
    await store?.close();
    await db?.drop();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent?.close(resolve));
  });

  it("answers within the budget: ready, with the warehouse down", async () => {
    const readiness = createReadiness({
      store,
      warehouses: new Map([["default", warehouse]]),
      isAccepting: () => true,
      isLoaded: () => true,
    });
    const report = await readiness.check();
    // "within 2 s": the budget decided, not the warehouse client's own (longer) ping timeout.
    expect(READINESS_PING_BUDGET_MS).toBe(2_000);
    expect(report).toMatchObject({
      ready: true,
      store: { status: "up" },
      warehouses: { default: { status: "down", message: "the warehouse did not answer SELECT 1 within 2 s" } },
    });
  });

  it("is not ready before the read model is loaded, then ready whatever the store answers", async () => {
    let loaded = false;
    const readiness = createReadiness({
      store,
      warehouses: new Map(),
      isAccepting: () => true,
      isLoaded: () => loaded,
    });
    expect(await readiness.check()).toMatchObject({
      ready: false,
      reason: "the statuses have not been loaded from the store yet",
      store: { status: "up" },
    });
    loaded = true;
    // Decided per call: the cached dependency check does not hold the verdict back.
    expect(await readiness.check()).toMatchObject({ ready: true, reason: null, store: { status: "up" } });
    // A store that no longer answers (closed) shows as down; the replica stays ready.
    const other = await targets.find((t) => t.name === "pglite")!.fresh();
    const closed = await createStore(other.options);
    await closed.close();
    try {
      const storeDown = createReadiness({ store: closed, warehouses: new Map(), isAccepting: () => true, isLoaded: () => true });
      expect(await storeDown.check()).toMatchObject({ ready: true, reason: null, store: { status: "down" } });
    } finally {
      await other.drop();
    }
  });
});
