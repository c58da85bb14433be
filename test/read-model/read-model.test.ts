// The read model on a real store (PGlite): what it serves, and when it reloads.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildView, createReadModel } from "../../src/read-model/read-model.js";
import { makeSnapshot } from "../../src/infer/catalog-snapshot.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { Store } from "../../src/store/store.js";
import { targets, type TestDatabase } from "../store/databases.js";
import { at, finished, observation, status, test } from "../store/fixtures.js";
import { ir } from "../services/fixtures.js";

const pglite = targets.find((t) => t.name === "pglite")!;
const tests = [test("m1", "k1"), test("m2", "k1"), test("m2", "k2")];
const catalog = makeSnapshot({ metrics: [ir({ name: "m1" }), ir({ name: "m2" })], tests, errors: [], warnings: [], compiled_at: at(0) });

describe("read model", () => {
  let db: TestDatabase;
  let store: Store;
  let clock = at(0);
  beforeEach(async () => {
    db = await pglite.fresh();
    store = await createStore({ ...db.options, now: () => clock });
  });
  afterEach(async () => {
    await store.close();
    await db.drop();
  });

  async function scan(id: string, minute: number, version = catalog.version) {
    await store.createScan({ scan_id: id, trigger: "schedule", started_at: at(minute - 1) });
    clock = at(minute);
    return store.completeScan(
      finished(id, tests, { k1: observation(0), k2: observation(4) }, [status("m1", "healthy"), status("m2", "unreliable")], version),
    );
  }

  it("starts empty, loads the newest scan, and reloads only when the store has a newer one", async () => {
    const model = createReadModel({ store, getSnapshot: () => catalog, historyLimit: 10 });
    const seen: string[] = [];
    model.onChange((view) => seen.push(view.scan?.scan_id ?? "none"));
    expect(model.view().statuses.size).toBe(0);
    expect(await model.refresh()).toBe(true); // first load
    expect(await model.refresh()).toBe(false);
    await scan("a", 10);
    expect(await model.refresh()).toBe(true);
    expect(await model.refresh()).toBe(false);
    const view = model.view();
    expect(view.scan?.scan_id).toBe("a");
    expect(view.observations.get("k2")).toEqual(observation(4));
    expect(view.history.get("m2")).toEqual([{ status: "unreliable", from: at(10), to: null }]);
    // A later scan of unchanged data rewrites no status row, yet the view says it checked them.
    await scan("b", 20);
    expect(await model.refresh()).toBe(true);
    expect(model.view().statuses.get("m1")).toMatchObject({ status: "healthy", since: at(10), checked_at: at(20), scan_id: "b" });
    expect(seen).toEqual(["none", "a", "b"]);
  });

  it("keeps the last view when the store fails", async () => {
    await scan("a", 10);
    const model = createReadModel({ store, getSnapshot: () => catalog, historyLimit: 10 });
    await model.refresh({ force: true });
    const before = model.view();
    await store.close();
    await expect(model.refresh({ force: true })).rejects.toThrow();
    expect(model.view()).toBe(before);
  });
});

describe("buildView", () => {
  const state = {
    scan: {
      scan_id: "s",
      trigger: "schedule" as const,
      status: "succeeded" as const,
      started_at: at(1),
      finished_at: at(2),
      error: null,
      summary: null,
      catalog_version: catalog.version,
    },
    statuses: [{ ...status("m1", "healthy"), checked_at: at(0), since: at(0), scan_id: "old" }],
    observations: new Map(),
    history: new Map(),
  };

  it("dates a status by the newest scan that ran the same catalogue", () => {
    expect(buildView(catalog, state, at(3)).statuses.get("m1")).toMatchObject({ checked_at: at(2), scan_id: "s", since: at(0) });
  });

  it("keeps a status's own date when the newest scan ran another catalogue", () => {
    const other = { ...state, scan: { ...state.scan, catalog_version: "other" } };
    expect(buildView(catalog, other, at(3)).statuses.get("m1")).toMatchObject({ checked_at: at(0), scan_id: "old" });
  });
});
