// freshness_anomaly learns when rows LAND, through the real scan service, on both engines
// (ClickHouse 18.16 server and chdb) and both stores (PostgreSQL and PGlite), with a controlled
// clock (ScanServiceOptions.loadClock): days of loads played in seconds. Every table holds dense
// event times (one event a second or a minute between loads), which the old rule took for its
// cadence. Targets (issue 18, item 5):
// - no alarm on tables loaded every 5 minutes, hourly, daily, or once, at any scan;
// - a table that stops loading is flagged within 2 x its interval + one scan interval of its last load;
// - dirty loads (NULL timestamps, a future-dated row, late rows only) change nothing of that;
// - a warehouse that does not answer fails the scan and records no load.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CheckObservation } from "../../src/evaluate/types.js";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { Store } from "../../src/store/store.js";
import type { Warehouse } from "../../src/warehouse/warehouse.js";
import { loadYaml } from "../correctness/fixture-catalog.js";
import { testScanService } from "../helpers/scan-service.js";
import { uniqueDatabase, type WarehouseHandle, engineCases } from "../helpers/warehouses.js";
import { type TestDatabase, storeTargets } from "../store/databases.js";

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;

/** One loader: a table loaded every `every` seconds (`loads` times after the first), scanned every `scan`. */
interface Loader {
  table: string;
  every: number;
  /** seconds between event times within a load (dense: 1 s or 1 min) */
  step: number;
  /** loads after the one already there when the daemon first looks; 0: loaded once */
  loads: number;
  /** what each load inserts besides its dense events */
  dirty?: "nulls_future_late" | "late_only";
}

interface Timeline {
  name: string;
  scan: number;
  loaders: Loader[];
  /** seconds played after the last load of the longest loader */
  tail: number;
  /** the incremental scan (the default) reads the parts' rows; without it only the newest row tells a load */
  incremental: boolean;
}

const TIMELINES: Timeline[] = [
  {
    name: "every 5 minutes",
    scan: 2 * MINUTE,
    loaders: [{ table: "every5", every: 5 * MINUTE, step: 1, loads: 8 }],
    tail: 12 * MINUTE,
    incremental: false,
  },
  {
    name: "hourly, with dirty loads",
    scan: 15 * MINUTE,
    loaders: [
      { table: "hourly", every: HOUR, step: 1, loads: 8 },
      { table: "hourly_dirty", every: HOUR, step: 1, loads: 8, dirty: "nulls_future_late" },
      { table: "hourly_backfill", every: HOUR, step: 1, loads: 8, dirty: "late_only" },
    ],
    tail: 2 * HOUR + 15 * MINUTE,
    incremental: true,
  },
  {
    name: "daily, and once",
    scan: 6 * HOUR,
    loaders: [
      { table: "daily", every: DAY, step: MINUTE, loads: 7 },
      { table: "once", every: DAY, step: 1, loads: 0 },
    ],
    tail: 2 * DAY + 6 * HOUR,
    incremental: true,
  },
];

const catalogue = (db: string, loaders: readonly Loader[]) =>
  `metrics:\n${loaders
    .map(
      (l) =>
        `  - name: ${l.table}\n    table: ${db}.${l.table}\n    timestamp: at\n    measures:\n      - { alias: events, function: Count }`,
    )
    .join("\n")}\n`;

const ts = (seconds: number) => `toDateTime(${Math.floor(seconds)})`;

/** Rows of one load landing at `at`: dense events since the previous load (plus the dirty rows). */
function loadStatements(db: string, loader: Loader, from: number, at: number): string[] {
  const table = `${db}.${loader.table}`;
  const n = Math.max(1, Math.floor((at - from) / loader.step));
  if (loader.dirty === "late_only") {
    // A backfill: rows of long ago only, never newer than what the table held. Only the parts see them.
    return [`INSERT INTO ${table} (at) SELECT ${ts(from - 30 * DAY)} + number FROM numbers(${n})`];
  }
  const dense = `INSERT INTO ${table} (at) SELECT ${ts(from)} + number * ${loader.step} FROM numbers(${n})`;
  if (loader.dirty !== "nulls_future_late") return [dense];
  // NULL timestamps, a row dated a year ahead, late rows of two days ago.
  return [
    dense,
    `INSERT INTO ${table} (at) VALUES (NULL), (NULL), (${ts(at + 365 * DAY)}), (${ts(at - 2 * DAY)}), (${ts(at - 2 * DAY + 7)})`,
  ];
}

describe.each(engineCases)("freshness_anomaly from arrivals on $name", (engine) => {
  describe.each(storeTargets)("with the $name store", (target) => {
    const db = uniqueDatabase(`mr_loads_${engine.name}_${target.name}`);
    let handle: WarehouseHandle;
    let testDb: TestDatabase;
    let store: Store;
    let serverNow = 0;

    beforeAll(async () => {
      handle = await engine.open();
      await handle.exec(`DROP DATABASE IF EXISTS ${db}`);
      await handle.exec(`CREATE DATABASE ${db}`);
      serverNow = Number((await handle.warehouse.query("SELECT toUInt32(now()) AS now", { queryId: `${db}-now` }))[0]!.now);
      testDb = await target.fresh();
      store = await createStore(testDb.options);
    }, 120_000);
    afterAll(async () => {
      await store?.close();
      await testDb?.drop();
      await handle?.exec(`DROP DATABASE IF EXISTS ${db}`);
      await handle?.close();
    });

    /**
     * Plays a timeline on the controlled clock: at each scan tick, the loads due by then land
     * first (their rows, event times up to the load's time), then the daemon scans. Returns each
     * loader's freshness_anomaly observations by tick.
     */
    async function play(timeline: Timeline, warehouse: Warehouse = handle.warehouse) {
      const longest = Math.max(...timeline.loaders.map((l) => l.loads * l.every));
      // Everything happens in the past of the server's clock (rows ahead of it are future-dated to it).
      const start = serverNow - longest - timeline.tail - HOUR;
      for (const l of timeline.loaders) {
        const nullable = l.dirty === "nulls_future_late" ? "Nullable(DateTime)" : "DateTime";
        await handle.exec(`CREATE TABLE ${db}.${l.table} (id UInt8 DEFAULT 0, at ${nullable}) ENGINE = MergeTree() ORDER BY id`);
        // The first load, before the daemon ever looks: a day of events, the newest 10 minutes old.
        for (const sql of loadStatements(
          db,
          { ...l, dirty: l.dirty === "late_only" ? undefined : l.dirty },
          start - DAY,
          start - 10 * MINUTE,
        ))
          await handle.exec(sql);
      }
      const snapshot: CatalogSnapshot = await loadYaml({ "loads.yaml": catalogue(db, timeline.loaders) });
      expect(snapshot.errors).toEqual([]);
      const keys = new Map(
        timeline.loaders.map((l) => [l.table, snapshot.tests.find((t) => t.metric === l.table && t.rule === "freshness_anomaly")!.key]),
      );
      let clock = start;
      const service = testScanService(store, warehouse, () => snapshot, undefined, {
        incremental: timeline.incremental,
        loadClock: () => clock,
      });
      const seen = new Map(timeline.loaders.map((l) => [l.table, [] as { at: number; observation: CheckObservation }[]]));
      const lastLoad = new Map(timeline.loaders.map((l) => [l.table, start - 10 * MINUTE]));
      const end = start + longest + timeline.tail;
      for (; clock <= end; clock += timeline.scan) {
        for (const l of timeline.loaders) {
          for (let k = 1; k <= l.loads; k++) {
            const at = start + k * l.every - timeline.scan / 2; // lands between two scans
            if (at > clock || at <= lastLoad.get(l.table)!) continue;
            for (const sql of loadStatements(db, l, lastLoad.get(l.table)!, at)) await handle.exec(sql);
            lastLoad.set(l.table, at);
          }
        }
        const { observations } = await service.run("manual");
        for (const l of timeline.loaders) seen.get(l.table)!.push({ at: clock, observation: observations.get(keys.get(l.table)!)! });
      }
      await service.stop();
      return { seen, lastLoad, start };
    }

    const failing = (o: CheckObservation) => o.outcome === "measured" && o.rows_affected > 0;

    it.each(TIMELINES)(
      "$name: no alarm while loading; a stopped loader flagged within 2 x its interval + one scan",
      async (timeline) => {
        const { seen, lastLoad, start } = await play(timeline);
        for (const l of timeline.loaders) {
          const ticks = seen.get(l.table)!;
          const last = lastLoad.get(l.table)!;
          // Learning first, never a guess from the dense event times.
          expect(ticks[0]!.observation.message).toBe("not applicable: learning the load cadence, 0 of 5 loads seen");
          if (l.loads === 0) {
            expect(last).toBe(start - 10 * MINUTE);
            for (const { observation } of ticks)
              expect(observation.message).toBe("not applicable: learning the load cadence, 0 of 5 loads seen");
            continue;
          }
          // While it loads (up to one interval after its last load): never failing.
          const loading = ticks.filter((t) => t.at <= last + l.every);
          expect(loading.filter((t) => failing(t.observation)).map((t) => (t.at - start) / timeline.scan)).toEqual([]);
          expect(loading.some((t) => /^not applicable: learning the load cadence, 3 of 5 loads seen$/.test(t.observation.message))).toBe(
            true,
          );
          const judged = loading.filter((t) => t.observation.outcome === "measured");
          expect(judged.length).toBeGreaterThan(0);
          expect(judged.at(-1)!.observation.message).toMatch(
            new RegExp(
              `^last load seen .+ ago; loads usually land every ${l.every === DAY ? "1d" : l.every === HOUR ? "1h" : "5m"}( \\d+s)?, stale after `,
            ),
          );
          // Stopped: flagged within 2 x the interval plus one scan interval of the last load, and stays flagged.
          const flagged = ticks.find((t) => t.at > last && failing(t.observation));
          expect(flagged, `${l.table} never flagged`).toBeDefined();
          expect(flagged!.at - last).toBeLessThanOrEqual(2 * l.every + timeline.scan);
          expect(ticks.filter((t) => t.at >= flagged!.at).every((t) => failing(t.observation))).toBe(true);
        }
      },
      600_000,
    );

    it("on the server's own clock, a MergeTree load is dated by its part's modification time, without slack", async () => {
      const loader: Loader = { table: "realtime", every: HOUR, step: 1, loads: 1 };
      await handle.exec(`CREATE TABLE ${db}.realtime (id UInt8 DEFAULT 0, at DateTime) ENGINE = MergeTree() ORDER BY id`);
      await handle.exec(`INSERT INTO ${db}.realtime (at) SELECT toDateTime(${serverNow - HOUR}) + number FROM numbers(600)`);
      const snapshot = await loadYaml({ "loads.yaml": catalogue(db, [loader]) });
      const service = testScanService(store, handle.warehouse, () => snapshot, undefined, { incremental: true });
      try {
        await service.run("manual"); // the first sight
        await handle.exec(`INSERT INTO ${db}.realtime (at) SELECT now() - number FROM numbers(60)`);
        await new Promise((resolve) => setTimeout(resolve, 2100)); // the scan's clock moves past the insert's second
        await service.run("manual");
      } finally {
        await service.stop();
      }
      const [parts] = await handle.warehouse.query(
        `SELECT toUInt32(max(modification_time)) AS modified FROM system.parts WHERE active AND database = '${db}' AND table = 'realtime'`,
        { queryId: `${db}-parts` },
      );
      const history = (await store.readLoads()).get(`default|${db}.realtime|at`)!;
      expect(history.state.loads).toBe(1);
      expect(history.arrivals).toEqual([{ at: Number(parts!.modified), gap: null, slack: 0 }]);
    }, 120_000);

    it("keeps what it learnt in the store, bounded, and a failing warehouse fails the scan and records no load", async () => {
      const before = await store.readLoads();
      const hourly = [...before.values()].find((h) => h.state.series.endsWith(".hourly|at"))!;
      // The first sight and 8 loads: 8 loads kept, the gaps between them hourly.
      expect(hourly.state.loads).toBe(8);
      expect(hourly.arrivals.map((a) => a.gap)).toEqual([null, ...new Array<number>(7).fill(HOUR)]);
      const once = [...before.values()].find((h) => h.state.series.endsWith(".once|at"))!;
      expect(once.state).toMatchObject({ loads: 0, last_load: null });
      expect(once.arrivals).toEqual([]);
      // A new load, but the warehouse stops answering during the scan: no load recorded.
      await handle.exec(`INSERT INTO ${db}.once (at) SELECT toDateTime(${serverNow - 60}) FROM numbers(10)`);
      let calls = 0;
      const outage: Warehouse = {
        ...handle.warehouse,
        query: (sql, options) => {
          calls += 1;
          // The cadence query (the newest row of each table) loses its connection.
          if (sql.includes("server_now")) return Promise.reject(new Error("socket hang up"));
          return handle.warehouse.query(sql, options);
        },
      };
      const snapshot = await loadYaml({ "loads.yaml": catalogue(db, TIMELINES[2]!.loaders) });
      const service = testScanService(store, outage, () => snapshot, undefined, { incremental: true, loadClock: () => serverNow });
      await expect(service.run("manual")).rejects.toThrow(/failed/);
      await service.stop();
      expect(calls).toBeGreaterThan(0);
      const after = await store.readLoads();
      expect(after.get(once.state.series)).toEqual(once);
      expect(after.get(hourly.state.series)).toEqual(hourly);
    }, 120_000);
  });
});
