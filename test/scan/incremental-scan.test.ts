// Incremental scans through the real scan service, on both engines (ClickHouse 18.16 server and
// chdb) and both stores (PostgreSQL and PGlite): unchanged tables are not read again (the
// server's own accounting, system.query_log; on chdb the queries sent), a change re-reads
// exactly the checks whose SQL reads the changed table, results equal a full scan's, the clock
// still moves freshness, mutations/OPTIMIZE/TRUNCATE change fingerprints, the previous pass
// survives a restart and serves another replica, and SCAN_INCREMENTAL=false reads everything.
import { setTimeout as sleep } from "node:timers/promises";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CheckObservation } from "../../src/evaluate/types.js";
import { createMetrics } from "../../src/metrics/prometheus.js";
import { createSeriesCache } from "../../src/read-model/series-cache.js";
import { executeScan } from "../../src/scan/execute-scan.js";
import { readFingerprints } from "../../src/scan/incremental.js";
import { createScanService } from "../../src/scan/scan-service.js";
import type { ScanService } from "../../src/scan/types.js";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { Store } from "../../src/store/store.js";
import { createServerWarehouse } from "../../src/warehouse/clickhouse-server.js";
import type { Warehouse } from "../../src/warehouse/warehouse.js";
import { countingWarehouse, type SentQuery } from "../correctness/run-scan.js";
import { maskAges } from "../e2e/expected.js";
import { serverConnection, uniqueDatabase, type WarehouseHandle, engineCases } from "../helpers/warehouses.js";
import { type TestDatabase, storeTargets } from "../store/databases.js";
import {
  FRESHNESS_SECONDS,
  incrementalCatalog,
  incrementalStatements,
  isTableQuery,
  scanReads,
  tablesOf,
  type TableRead,
} from "./incremental-fixture.js";

const ALWAYS_READ = ["memo", "orders_view", "visits"]; // Memory, View, a filter reading now()

const sorted = (values: Iterable<string>) => [...new Set(values)].sort();
/** Observations as a full scan would state them: ages masked, the kept timestamp left out. */
const comparable = (observations: ReadonlyMap<string, CheckObservation>) =>
  maskAges(Object.fromEntries([...observations].map(([key, { newest: _newest, ...rest }]) => [key, rest]).sort()));

describe.each(engineCases)("incremental scans on $name", (engine) => {
  describe.each(storeTargets)("with the $name store", (target) => {
    const db = uniqueDatabase(`mr_incr_${engine.name}_${target.name}`);
    const sent: SentQuery[] = [];
    const unchangedScans: string[] = [];
    let handle: WarehouseHandle;
    let base: Warehouse;
    let warehouse: Warehouse;
    let snapshot: CatalogSnapshot;
    let testDb: TestDatabase;
    let store: Store;
    let service: ScanService;
    const seriesCache = createSeriesCache();
    let firstScanId = "";

    const serviceOn = (on: Store, incremental = true) =>
      createScanService({
        getSnapshot: () => snapshot,
        warehouses: new Map([["default", warehouse]]),
        store: on,
        metrics: createMetrics(),
        logger: pino({ level: "silent" }),
        concurrency: 2,
        maxQuerySize: 262_144,
        retentionDays: 30,
        incremental,
        // The anomaly series of an unchanged table are judged again from the replica's series.
        seriesCache,
      });

    async function scan(using = service) {
      const { scan: record, observations } = await using.run("manual");
      return { id: record.scan_id, observations, reads: scanReads(sent, record.scan_id, db) };
    }

    /** The same catalogue read in full, as SCAN_INCREMENTAL=false does (nothing written). */
    async function fullScan() {
      const outcome = await executeScan(snapshot, new Map([["default", base]]), {
        scanId: `full-${Date.now()}`,
        concurrency: 2,
        maxQuerySize: 262_144,
        signal: new AbortController().signal,
      });
      return { observations: outcome.observations, statuses: Object.fromEntries(outcome.statuses.map((s) => [s.metric_name, s.status])) };
    }

    const statuses = async (on = store) => Object.fromEntries((await on.latestStatuses()).map((s) => [s.metric_name, s.status]));
    const tables = (reads: TableRead[]) => sorted(reads.map((r) => r.table));

    /**
     * The server's own accounting of a scan: every finished query, with what it read. A query's
     * log entry may land just after its answer, so this waits until every query sent is there.
     */
    async function logged(scanId: string): Promise<{ query: string; read_bytes: number }[]> {
      const expected = sent.filter((q) => q.options.queryId.startsWith(`${scanId}-`)).length;
      for (let attempt = 0; ; attempt++) {
        await handle.exec("SYSTEM FLUSH LOGS");
        const rows = await handle.warehouse.query(
          `SELECT query, toString(read_bytes) AS read_bytes FROM system.query_log WHERE type = 2 AND query_id LIKE '${scanId}-%'`,
          { queryId: `log-${Date.now()}` },
        );
        if (rows.length >= expected || attempt === 50)
          return rows.map((r) => ({ query: String(r.query), read_bytes: Number(r.read_bytes) }));
        await sleep(200);
      }
    }

    async function serverNow(): Promise<number> {
      const [row] = await base.query("SELECT toUInt64(now()) AS now", { queryId: `now-${Date.now()}` });
      return Number(row!.now);
    }

    beforeAll(async () => {
      handle = await engine.open();
      for (const statement of incrementalStatements(db)) await handle.exec(statement);
      // On the server, log_queries=1 on the daemon's queries puts them in system.query_log.
      const server = serverConnection();
      base =
        engine.name === "server" && server
          ? createServerWarehouse({ ...server, name: "default", timeoutSeconds: 30, logQueries: true })
          : handle.warehouse;
      warehouse = countingWarehouse(base, sent);
      snapshot = await incrementalCatalog(db);
      testDb = await target.fresh();
      store = await createStore(testDb.options);
      service = serviceOn(store);
    });

    afterAll(async () => {
      await service?.stop();
      await store?.close();
      await testDb?.drop();
      await handle?.exec(`DROP DATABASE IF EXISTS ${db}`);
      if (base !== handle?.warehouse) await base?.close();
      await handle?.close();
    });

    it("reads every table in the first scan, and the fingerprints in one metadata query", async () => {
      const first = await scan();
      firstScanId = first.id;
      expect(tables(first.reads)).toEqual(["customers", "memo", "orders", "orders_view", "pings", "products", "visits"]);
      const metadata = sent.filter((q) => q.options.queryId.startsWith(`${first.id}-`) && q.sql.includes("system.parts"));
      expect(metadata.map((q) => q.options.queryId)).toEqual([`${first.id}-parts-default`]);
      if (engine.name === "server") {
        const log = await logged(first.id);
        expect(log.filter((q) => q.query.includes("system.parts"))).toHaveLength(1);
        expect(log.filter((q) => isTableQuery(q.query)).reduce((sum, q) => sum + q.read_bytes, 0)).toBeGreaterThan(0);
      }
    });

    it("does not read unchanged tables again: only the view, the Memory table and the filter on now()", async () => {
      const before = await statuses();
      const second = await scan();
      unchangedScans.push(second.id);
      expect(tables(second.reads)).toEqual(ALWAYS_READ);
      // Nor their anomaly series (read in the first scan), judged again from the replica's series.
      const seriesTables = (id: string) =>
        sorted(sent.filter((q) => q.options.queryId.startsWith(`${id}-series`)).flatMap((q) => tablesOf(q.sql, db)));
      expect(seriesTables(firstScanId)).toEqual(expect.arrayContaining(["orders", "pings", "products"]));
      expect(seriesTables(second.id).filter((t) => !ALWAYS_READ.includes(t))).toEqual([]);
      if (engine.name === "server") {
        // ClickHouse's own account: no query of this scan read a MergeTree table that did not change.
        const reads = (await logged(second.id)).filter((q) => isTableQuery(q.query));
        expect(sorted(reads.flatMap((q) => tablesOf(q.query, db)))).toEqual(ALWAYS_READ);
      }
      expect(await statuses()).toEqual(before);
      expect(comparable(second.observations)).toEqual(comparable((await fullScan()).observations));
    });

    it("re-reads exactly the checks that read an appended table, through a join and a semi-join too", async () => {
      await handle.exec(`INSERT INTO ${db}.customers VALUES (21, 'retail'), (22, NULL)`);
      const third = await scan();
      expect(tables(third.reads)).toEqual(sorted(["customers", "orders", ...ALWAYS_READ]));
      for (const read of third.reads.filter((r) => !ALWAYS_READ.includes(r.table))) expect(read.reads).toContain("customers");
      // orders is read for its NOT IN over customers only, not for its own columns
      const orders = third.reads.find((r) => r.table === "orders")!;
      expect(orders.sql).toContain("NOT IN (SELECT");
      expect(orders.sql).not.toContain("`amount`");
      // customers' checks run on the customers orders reach: a semi-join over orders
      expect(third.reads.find((r) => r.table === "customers")!.reads).toEqual(["customers", "orders"]);
      const full = await fullScan();
      expect(comparable(third.observations)).toEqual(comparable(full.observations));
      expect(await statuses()).toEqual(full.statuses);
    });

    it("judges freshness again with the clock: unchanged data goes stale without a read", async () => {
      const margin = 8;
      await handle.exec(`INSERT INTO ${db}.pings SELECT number + 1, now() - ${FRESHNESS_SECONDS - margin} FROM numbers(5)`);
      const inserted = await serverNow();
      const fresh = await scan();
      expect(tables(fresh.reads)).toContain("pings");
      expect((await statuses())["pings_fresh"]).toBe("healthy");
      while ((await serverNow()) <= inserted + margin + 1) await sleep(500);
      const stale = await scan();
      expect(tables(stale.reads)).toEqual(ALWAYS_READ);
      const key = snapshot.tests.find((t) => t.metric === "pings_fresh" && t.rule === "freshness")!.key;
      expect(stale.observations.get(key)).toMatchObject({ outcome: "measured", rows_affected: 1, rows_total: 5 });
      expect(stale.observations.get(key)!.message).toMatch(/^newest row is 2\ds old \(allowed 20s\)$/);
      expect((await statuses())["pings_fresh"]).toBe("unreliable");
      expect((await fullScan()).statuses["pings_fresh"]).toBe("unreliable");
    });

    it("sees a mutation, a merge (OPTIMIZE) and TRUNCATE in the fingerprint, and re-reads", async () => {
      const products = `${db}.products`;
      const fingerprint = async () => (await readFingerprints(base, [products], { queryId: `fp-${Date.now()}` }))!.tables.get(products)!;
      const original = await fingerprint();
      await handle.exec(`ALTER TABLE ${products} UPDATE price = -1 WHERE id = 1`);
      for (let i = 0; i < 100; i++) {
        const [row] = await base.query(
          `SELECT count() AS n FROM system.mutations WHERE database = '${db}' AND table = 'products' AND is_done = 0`,
          {
            queryId: `mut-${Date.now()}`,
          },
        );
        if (Number(row!.n) === 0) break;
        await sleep(100);
      }
      const mutated = await fingerprint();
      expect(mutated).not.toBe(original);
      const afterMutation = await scan();
      expect(tables(afterMutation.reads)).toEqual(sorted(["products", ...ALWAYS_READ]));
      expect(comparable(afterMutation.observations)).toEqual(comparable((await fullScan()).observations));

      await handle.exec(`INSERT INTO ${products} VALUES (11, 2.5, now() - 60)`);
      const twoParts = await fingerprint();
      await handle.exec(`OPTIMIZE TABLE ${products} FINAL`);
      const merged = await fingerprint();
      expect(new Set([original, mutated, twoParts, merged]).size).toBe(4);
      await handle.exec(`TRUNCATE TABLE ${products}`);
      const truncated = await fingerprint();
      expect(new Set([original, mutated, twoParts, merged, truncated]).size).toBe(5);
      const afterTruncate = await scan();
      expect(tables(afterTruncate.reads)).toEqual(sorted(["products", ...ALWAYS_READ]));
      expect((await statuses())["product_prices"]).toBe("unreliable"); // table_not_empty
      expect(comparable(afterTruncate.observations)).toEqual(comparable((await fullScan()).observations));
    });

    it("keeps the previous pass across a restart and for another replica (it lives in the store)", async () => {
      const before = await statuses();
      await service.stop();
      let replica: Store;
      if (target.name === "pglite") {
        // one process per PGlite directory: a restart
        await store.close();
        replica = await createStore(testDb.options);
        store = replica;
      } else {
        replica = await createStore(testDb.options); // a second replica on the same database
      }
      const other = serviceOn(replica);
      try {
        const next = await scan(other);
        unchangedScans.push(next.id);
        expect(tables(next.reads)).toEqual(ALWAYS_READ);
        expect(await statuses(replica)).toEqual(before);
      } finally {
        await other.stop();
        if (replica !== store) await replica.close();
      }
      service = serviceOn(store);
    });

    it("reads everything with SCAN_INCREMENTAL=false, and forgets the kept bases", async () => {
      const off = serviceOn(store, false);
      try {
        const everything = await scan(off);
        expect(tables(everything.reads)).toEqual(["customers", "memo", "orders", "orders_view", "pings", "products", "visits"]);
        expect(sent.some((q) => q.options.queryId.startsWith(`${everything.id}-`) && q.sql.includes("system.parts"))).toBe(false);
        expect(await store.readPasses()).toEqual(new Map());
      } finally {
        await off.stop();
      }
      // The next incremental scan has nothing to keep: it reads everything once more, then not again.
      expect(tables((await scan()).reads)).toEqual(["customers", "memo", "orders", "orders_view", "pings", "products", "visits"]);
      const again = await scan();
      unchangedScans.push(again.id);
      expect(tables(again.reads)).toEqual(ALWAYS_READ);
    });

    it("writes a check's basis only when it changes: scans of unchanged data write none", async () => {
      const passes = await store.readPasses();
      expect(passes.size).toBeGreaterThan(10);
      await service.stop();
      await store.close();
      const rows = await testDb.query<{ n: string }>(`SELECT count(*)::text AS n FROM "check_passes" WHERE "scan_id" = ANY($1::text[])`, [
        unchangedScans,
      ]);
      expect(rows[0]!.n).toBe("0");
      store = await createStore(testDb.options);
      service = serviceOn(store);
    });
  });
});
