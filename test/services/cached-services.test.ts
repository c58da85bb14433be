// The caching wrapper around the real services, on the real store (PGlite) and read model: which
// answers are shared (and serialised once) per read-model view or catalogue snapshot, which are
// built per call, and the bound on single-metric answers. No scan runs here: the warehouse is the
// ClickHouse server client pointed at a port nothing listens on.
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_METRICS_DIR } from "../../src/config/config.js";
import type { ReadModel } from "../../src/read-model/read-model.js";
import { CACHED_ANSWERS } from "../../src/services/cached-services.js";
import { makeSnapshot, type CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { createFindingsHolder, NO_FINDINGS } from "../../src/infer/catalog-findings.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import { serializedJson } from "../../src/services/serialized.js";
import type { Services } from "../../src/services/types.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { Store } from "../../src/store/store.js";
import { createServerWarehouse } from "../../src/warehouse/clickhouse-server.js";
import type { Warehouse } from "../../src/warehouse/warehouse.js";
import { testServices } from "../helpers/scan-service.js";
import { targets, type TestDatabase } from "../store/databases.js";
import { ir } from "./fixtures.js";

const logger = pino({ level: "silent" });
const pglite = targets.find((t) => t.name === "pglite")!;

let db: TestDatabase;
let store: Store;
let warehouse: Warehouse;
let demo: CatalogSnapshot;
/** what the services see as the catalogue; tests swap it */
let catalogue: CatalogSnapshot;
let readModel: ReadModel;
let raw: Services;
let cached: Services;

/** The bytes REST would send for `value`, parsed back; undefined when none were remembered. */
const sentJson = (value: object) => {
  const bytes = serializedJson(value);
  return bytes ? (JSON.parse(bytes.toString("utf8")) as unknown) : undefined;
};

const findings = createFindingsHolder();

beforeAll(async () => {
  db = await pglite.fresh();
  store = await createStore({ ...db.options, logger });
  warehouse = createServerWarehouse({ name: "default", url: "http://127.0.0.1:1", timeoutSeconds: 5 });
  demo = await loadCatalogSnapshot(DEMO_METRICS_DIR);
  catalogue = demo;
  const getSnapshot = () => catalogue;
  ({ readModel, uncached: raw, services: cached } = testServices(store, warehouse, getSnapshot, { findings }));
  await readModel.refresh({ force: true });
});

afterAll(async () => {
  catalogue = demo;
  await store?.close();
  await warehouse?.close();
  await db?.drop();
});

describe("cached services", () => {
  it("serialise each whole listing once per view or snapshot and share it; the answers equal the services'", async () => {
    const [tests, ir, status] = [await cached.validation.listTests(), await cached.compiler.status(), await cached.reliability.status()];
    expect(tests).toEqual(await raw.validation.listTests());
    expect(ir).toEqual(await raw.compiler.status());
    expect(status).toEqual(await raw.reliability.status());
    for (const listing of [tests, ir, status]) expect(sentJson(listing)).toEqual(JSON.parse(JSON.stringify(listing)));

    expect(await cached.validation.listTests({})).toBe(tests);
    expect(await cached.compiler.status({})).toBe(ir);
    expect(await cached.reliability.status({})).toBe(status);
    // The services themselves build a new answer per call, and remember no bytes.
    const fresh = await raw.reliability.status();
    expect(fresh).not.toBe(await raw.reliability.status());
    expect(serializedJson(fresh)).toBeUndefined();
  });

  it("build pages and filtered listings per call, with no bytes kept", async () => {
    const page = await cached.reliability.status({ limit: 2 });
    expect(page).toEqual(await raw.reliability.status({ limit: 2 }));
    expect(page).not.toBe(await cached.reliability.status({ limit: 2 }));
    expect(serializedJson(page)).toBeUndefined();
    const tests = await cached.validation.listTests({ metric: "gross_revenue" });
    expect(tests.tests.length).toBeGreaterThan(0);
    expect(serializedJson(tests)).toBeUndefined();
    expect(serializedJson(await cached.compiler.status({ table: "shop.orders" }))).toBeUndefined();
  });

  it("start again on a new read-model view", async () => {
    const status = await cached.reliability.status();
    const one = await cached.reliability.metricStatus("gross_revenue");
    expect(await cached.reliability.metricStatus("gross_revenue")).toBe(one);
    expect(sentJson(one)).toEqual(JSON.parse(JSON.stringify(one)));
    expect(await readModel.refresh({ force: true })).toBe(true);
    const next = await cached.reliability.status();
    expect(next).not.toBe(status);
    expect(next).toEqual(status);
    expect(await cached.reliability.metricStatus("gross_revenue")).not.toBe(one);
  });

  it("serialise the IR listing again when the warehouse check finds another SQL error", async () => {
    const before = await cached.compiler.status();
    expect(await cached.compiler.status()).toBe(before);
    findings.set({
      ...NO_FINDINGS,
      sql_errors: new Map([["gross_revenue", { metric: "gross_revenue", file: "metrics/shop.yaml", message: "syntax error" }]]),
    });
    try {
      const after = await cached.compiler.status();
      expect(after).not.toBe(before);
      expect(after.errors).toContainEqual({ metric: "gross_revenue", file: "metrics/shop.yaml", message: "syntax error" });
      expect(sentJson(after)).toEqual(JSON.parse(JSON.stringify(after)));
      expect(await cached.compiler.status()).toBe(after);
    } finally {
      findings.set(NO_FINDINGS);
    }
  });

  it("keep an unknown metric's not_found out of the cache, and pass every other call through", async () => {
    await expect(cached.reliability.metricStatus("no_such_metric")).rejects.toMatchObject({ code: "not_found" });
    await expect(cached.reliability.metricStatus("no_such_metric")).rejects.toMatchObject({ code: "not_found" });
    await expect(cached.compiler.irByName("no_such_metric")).rejects.toMatchObject({ code: "not_found" });
    expect(await cached.compiler.irByName("gross_revenue")).toBe(await raw.compiler.irByName("gross_revenue"));
    expect(await cached.reliability.affectedBy("shop.orders")).toEqual(await raw.reliability.affectedBy("shop.orders"));
  });

  it(`keep at most ${CACHED_ANSWERS} single-metric answers per view`, async () => {
    const names = Array.from({ length: CACHED_ANSWERS + 1 }, (_, i) => `metric_${i}`);
    catalogue = makeSnapshot({
      metrics: names.map((name) => ir({ name })),
      tests: [],
      errors: [],
      warnings: [],
      compiled_at: new Date("2024-05-01T00:00:00Z"),
    });
    try {
      await readModel.refresh({ force: true });
      const first = await cached.reliability.metricStatus(names[0]!);
      for (const name of names.slice(1, CACHED_ANSWERS)) await cached.reliability.metricStatus(name);
      // Full, but still holding every answer of this view.
      expect(await cached.reliability.metricStatus(names[0]!)).toBe(first);
      // One more: the map starts again, so the first answer is built anew.
      await cached.reliability.metricStatus(names[CACHED_ANSWERS]!);
      const again = await cached.reliability.metricStatus(names[0]!);
      expect(again).not.toBe(first);
      expect(again).toEqual(first);
    } finally {
      catalogue = demo;
      await readModel.refresh({ force: true });
    }
  });
});
