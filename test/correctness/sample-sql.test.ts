// Every result's sample_sql, pasted into the same engine, returns only violating rows: the
// planted ids (respecting the metric's filter), as many as reported up to the LIMIT 10.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestResult } from "../../src/evaluate/types.js";
import { uniqueDatabase, type WarehouseHandle, engineCases } from "../helpers/warehouses.js";
import { loadFixtureCatalog } from "./fixture-catalog.js";
import { DUPLICATE_CUSTOMER_IDS, DUPLICATE_CUSTOMER_ROWS, SEGMENT_NULL_IDS, defectIds, type Defect } from "./fixture-warehouse.js";
import { dropFixture, openFixture, runScan, type ScanRun } from "./run-scan.js";

const LIMIT = 10;

/** Planted rows behind each orders check, and what a violating row looks like there. */
const ORDERS_CHECKS: Record<string, { defects: Defect[]; column: string; violates: (value: unknown, now: string) => boolean }> = {
  "measure_not_null amount": { defects: ["amountNull"], column: "amount", violates: (v) => v === null },
  // NaN and Inf are rendered as null in JSON by both engines; the id tells them from NULL.
  "measure_finite amount": { defects: ["amountNaN", "amountInf"], column: "amount", violates: (v) => v === null },
  "measure_non_negative amount": { defects: ["amountNegative"], column: "amount", violates: (v) => typeof v === "number" && v < 0 },
  "count_key_not_null customer_id": { defects: ["customerNull"], column: "customer_id", violates: (v) => v === null },
  "foreign_key_not_null customer_id": { defects: ["customerNull"], column: "customer_id", violates: (v) => v === null },
  "dimension_not_null country": { defects: ["countryNull", "countryEmpty"], column: "country", violates: (v) => v === null || v === "" },
  "dimension_not_null channel": { defects: ["channelEmpty"], column: "channel", violates: (v) => v === "" },
  "join_referential_integrity customer_id": { defects: ["customerOrphan"], column: "customer_id", violates: (v) => Number(v) > 50 },
  "timestamp_not_future created_at": {
    defects: ["createdFuture"],
    column: "created_at",
    violates: (v, now) => typeof v === "string" && v > now,
  },
};

const skippedFromQuery = (r: TestResult) => r.message.startsWith("not evaluated") || r.message.startsWith("not applicable");

describe.each(engineCases)("$name: sample queries of the correctness fixture", (engine) => {
  const db = uniqueDatabase("mr_corr_sample");
  let handle: WarehouseHandle | undefined;
  let run: ScanRun;
  let now: string;
  const query = (sql: string) => handle!.warehouse.query(sql, { queryId: `sample-${Date.now()}` });
  const byRule = (rule: string) => run.results.filter((r) => r.rule === rule && !skippedFromQuery(r));

  beforeAll(async () => {
    handle = await openFixture(engine, db);
    run = await runScan(await loadFixtureCatalog(db), handle.warehouse);
    now = String(((await query("SELECT now() AS now")) as { now: string }[])[0]!.now);
  });
  afterAll(() => dropFixture(handle, db));

  it("row checks on orders return only the planted rows, filter respected, up to LIMIT 10", async () => {
    // Every row-level check on orders (freshness and emptiness samples are aggregates, below).
    // (Passing checks are covered below.)
    const results = run.results.filter(
      (r) => r.sample_sql.startsWith(`SELECT * FROM \`${db}\`.\`orders\` WHERE`) && !skippedFromQuery(r) && r.status !== "passing",
    );
    expect(results.length).toBeGreaterThan(20);
    for (const result of results) {
      const words = result.check.split(/[^A-Za-z0-9_]+/);
      const spec = Object.entries(ORDERS_CHECKS).find(
        ([key]) => key.startsWith(`${result.rule} `) && words.includes(key.split(" ")[1]!),
      )?.[1];
      expect(spec, `${result.metric} ${result.rule} ${result.check}`).toBeDefined();
      const filtered = result.sample_sql.includes("(status = 'completed')");
      const planted = new Set(defectIds(spec!.defects, filtered));
      expect(result.rows_affected).toBe(planted.size);
      expect(result.sample_sql).toMatch(/ LIMIT 10$/);
      expect(result.status).not.toBe("passing");
      const rows = await query(result.sample_sql);
      expect(rows, `${result.metric}: ${result.sample_sql}`).toHaveLength(Math.min(result.rows_affected, LIMIT));
      for (const row of rows) {
        expect(planted.has(Number(row.id)), `${result.metric} ${result.rule}: id ${String(row.id)}`).toBe(true);
        expect(spec!.violates(row[spec!.column], now), `${result.rule}: ${JSON.stringify(row)}`).toBe(true);
        if (filtered) expect(row.status).toBe("completed");
      }
    }
  });

  it("passing row checks return no rows", async () => {
    const passing = run.results.filter(
      (r) => r.status === "passing" && r.rows_total > 0 && / LIMIT 10$/.test(r.sample_sql) && r.rule !== "join_key_unique",
    );
    expect(passing.length).toBeGreaterThan(10);
    for (const result of passing) expect(await query(result.sample_sql), `${result.metric} ${result.rule}`).toEqual([]);
  });

  it("a NULL dimension on the joined table returns those rows", async () => {
    const [segment] = byRule("dimension_not_null").filter((r) => r.check.startsWith("segment"));
    const rows = await query(segment!.sample_sql);
    expect(rows).toHaveLength(segment!.rows_affected);
    expect(rows.map((r) => Number(r.id)).sort((a, b) => a - b)).toEqual(SEGMENT_NULL_IDS);
    expect(rows.every((r) => r.segment === null)).toBe(true);
  });

  it("duplicate join keys return every row sharing a duplicated key", async () => {
    const [unique] = byRule("join_key_unique").filter((r) => r.status === "failing");
    expect(unique!.rows_affected).toBe(3); // extra rows: count() - uniqExact(id)
    const rows = await query(unique!.sample_sql);
    // Both copies of a duplicate are shown: neither is "the" bad one.
    expect(rows).toHaveLength(Math.min(DUPLICATE_CUSTOMER_ROWS, LIMIT));
    expect([...new Set(rows.map((r) => Number(r.id)))].sort()).toEqual(DUPLICATE_CUSTOMER_IDS);
  });

  it("freshness, emptiness and schema samples show the evidence", async () => {
    const [stale] = byRule("freshness").filter((r) => r.status === "failing" && r.rows_total > 0);
    const [freshness] = (await query(stale!.sample_sql)) as { newest: string; checked_at: string }[];
    const age = (Date.parse(`${freshness!.checked_at}Z`) - Date.parse(`${freshness!.newest}Z`)) / 1000;
    expect(age).toBeGreaterThanOrEqual(2 * 86_400);
    expect(age).toBeLessThan(2 * 86_400 + 3600);

    const [empty] = byRule("table_not_empty").filter((r) => r.status === "failing");
    expect(await query(empty!.sample_sql)).toEqual([{ rows: "0" }]);

    const drift = run.results.find((r) => r.metric === "drifted" && r.rule === "columns_exist")!;
    const columns = ((await query(drift.sample_sql)) as { name: string }[]).map((r) => r.name);
    expect(columns).toContain("country");
    expect(columns).not.toContain("discount");
    const gone = run.results.find((r) => r.metric === "gone_metric" && r.rule === "columns_exist")!;
    expect(await query(gone.sample_sql)).toEqual([]);
  });
});
