// An incremental scan states exactly what a full scan states, on the correctness fixture (every
// rule, dbt tests, a filter that throws, schema drift) and on dbt Labs' MetricFlow reference
// project (semi-joins through Metric() filters and join paths), on both engines: on unchanged
// data, and after rows were appended to some tables.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judgeAll } from "../../src/evaluate/evaluate.js";
import type { CheckObservation } from "../../src/evaluate/types.js";
import { nextPass, type PreviousCheck } from "../../src/evaluate/check-pass.js";
import { executeScan, type ScanOutcome } from "../../src/scan/execute-scan.js";
import type { Judgement } from "../../src/scan/judge-metrics.js";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import type { Warehouse } from "../../src/warehouse/warehouse.js";
import { loadFixtureCatalog } from "../correctness/fixture-catalog.js";
import { fixtureStatements } from "../correctness/fixture-warehouse.js";
import { metricflowStatements } from "../correctness/metricflow-warehouse.js";
import { uniqueDatabase, type WarehouseHandle, engineCases } from "../helpers/warehouses.js";

const METRICFLOW = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/metricflow");

/** Two scans' words for the same facts: ages move with the clock, query ids differ. */
const masked = <T>(value: T): T =>
  JSON.parse(
    JSON.stringify(value)
      .replace(/newest row is [^"]*? (old|in the future)/g, "newest row is <age> $1")
      .replace(/query [A-Za-z0-9_.:-]+ failed/g, "query <id> failed"),
  ) as T;
const comparable = (observations: ReadonlyMap<string, CheckObservation>) =>
  masked(Object.fromEntries([...observations].map(([key, { newest: _newest, ...rest }]) => [key, rest]).sort()));

interface Case {
  name: string;
  statements(db: string): string[];
  catalog(db: string): Promise<CatalogSnapshot>;
  /** rows appended to some of the tables */
  append(db: string): string[];
}

const CASES: Case[] = [
  {
    name: "the correctness fixture",
    statements: fixtureStatements,
    catalog: loadFixtureCatalog,
    append: (db) => [
      // an orphan customer and a NULL amount on orders; a duplicated product key
      `INSERT INTO ${db}.orders VALUES (201, 9998, NULL, 'completed', 'US', 'web', now() - 30)`,
      `INSERT INTO ${db}.clean_products VALUES (3, 'books')`,
    ],
  },
  {
    name: "the MetricFlow reference project",
    statements: (db) => metricflowStatements(db, false),
    catalog: (db) => loadCatalogSnapshot(METRICFLOW, new Date(), { metricflowDatabase: db }),
    append: (db) => [
      // listing 3 twice: dim_listings is read through semi-joins from the bookings and views models
      `INSERT INTO ${db}.dim_listings_latest VALUES (3, 1, today(), 'us', 1, 2)`,
    ],
  },
];

describe.each(engineCases)("incremental = full on $name", (engine) => {
  let handle: WarehouseHandle;
  beforeAll(async () => {
    handle = await engine.open();
  });
  afterAll(async () => {
    await handle?.close();
  });

  describe.each(CASES)("$name", (fixture) => {
    const db = uniqueDatabase("mr_incr_eq");
    let snapshot: CatalogSnapshot;
    let previous = new Map<string, PreviousCheck>();
    // the incremental scans also judge only what changed since the last one (judge-metrics.ts)
    let judged: Judgement | null = null;
    let n = 0;

    const scan = (warehouse: Warehouse, incremental: boolean): Promise<ScanOutcome> =>
      executeScan(snapshot, new Map([["default", warehouse]]), {
        scanId: `eq-${engine.name}-${(n += 1)}`,
        concurrency: 2,
        maxQuerySize: 262_144,
        signal: new AbortController().signal,
        ...(incremental ? { incremental: { previous }, lastJudgement: judged } : {}),
      });

    /** An incremental scan, checked against a full one; the previous pass moves on. */
    async function both(): Promise<ScanOutcome> {
      const incremental = await scan(handle.warehouse, true);
      const full = await scan(handle.warehouse, false);
      expect(comparable(incremental.observations)).toEqual(comparable(full.observations));
      expect(incremental.statuses).toEqual(full.statuses);
      expect(incremental.summary).toEqual(full.summary);
      expect(incremental.judgement.problems).toEqual(full.judgement.problems);
      expect(masked(judgeAll(snapshot.tests, incremental.observations, incremental.blocked))).toEqual(
        masked(judgeAll(snapshot.tests, full.observations, full.blocked)),
      );
      previous = nextPass(previous, incremental.passes!, incremental.observations);
      judged = incremental.judgement;
      return incremental;
    }

    beforeAll(async () => {
      await handle.exec(`DROP DATABASE IF EXISTS ${db}`);
      for (const statement of fixture.statements(db)) await handle.exec(statement);
      snapshot = await fixture.catalog(db);
    });
    afterAll(async () => {
      await handle?.exec(`DROP DATABASE IF EXISTS ${db}`);
    });

    it("first pass, unchanged data, appended rows: the same observations, results and statuses as a full scan", async () => {
      const first = await both();
      expect(first.incremental!.kept).toBe(0);
      const unchanged = await both();
      expect(unchanged.incremental!.kept).toBeGreaterThan(first.incremental!.read / 2);
      for (const statement of fixture.append(db)) await handle.exec(statement);
      const appended = await both();
      expect(appended.incremental!.read).toBeGreaterThan(unchanged.incremental!.read);
      expect(appended.incremental!.kept).toBeGreaterThan(0);
      const after = await both();
      expect(after.incremental!.read).toBe(unchanged.incremental!.read);
    });
  });
});
