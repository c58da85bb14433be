// What the scan sends: one query per (datasource, table) with the metrics' filters folded into
// the aggregates, shared checks computed once, count() + countIf / uniqExact / NOT IN (SELECT ...),
// every query tagged with a query id, a query split only when it would pass max_query_size
// (measured on the engines themselves), and a filter that fails at run time isolated to its tests.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planScan, QUERY_WRAPPER_BYTES } from "../../src/plan/plan-scan.js";
import { schemaFromRows, schemaQuery, type ColumnRow } from "../../src/plan/schema-query.js";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { uniqueDatabase, type WarehouseHandle, engineCases } from "../helpers/warehouses.js";
import { loadFixtureCatalog, loadYaml } from "./fixture-catalog.js";
import { FILTER } from "./fixture-warehouse.js";
import { dropFixture, groupOf, openFixture, runScan, seriesQueries, sqlChecks, tableQueries, type ScanRun } from "./run-scan.js";

const MAX_QUERY_SIZE = 262_144; // ClickHouse's default, on both engines
const WIDE_COLUMNS = 30;
const wideColumn = (i: number) => `w${i}_${"x".repeat(110)}_amount`;
const LONG_FILTER_BYTES = 250_000;

describe.each(engineCases)("$name: queries of a scan", (engine) => {
  const db = uniqueDatabase("mr_corr_plan");
  let handle: WarehouseHandle | undefined;
  let run: ScanRun;
  let snapshot: CatalogSnapshot;
  /** distinct countIf checks on the filtered orders group */
  let filteredRowChecks: number;
  const q = (name: string) => `\`${db}\`.\`${name}\``;

  beforeAll(async () => {
    handle = await openFixture(engine, db);
    snapshot = await loadFixtureCatalog(db);
    // Distinct violations: count_key_not_null and foreign_key_not_null on customer_id share one countIf.
    filteredRowChecks = new Set(
      snapshot.tests.flatMap((t) => (t.probe.type === "rows_where" && t.filter === FILTER ? [t.probe.violation] : [])),
    ).size;
    run = await runScan(snapshot, handle.warehouse, { scanId: `corr-plan-${engine.name}` });
  });
  afterAll(() => dropFixture(handle, db));

  it("reads the schema once, then sends exactly one query per table", () => {
    expect(run.sent[0]!.sql).toMatch(/^SELECT database, table, name, type FROM system\.columns WHERE /);
    expect(run.sent.filter((s) => s.sql.includes("FROM system.columns"))).toHaveLength(1);
    const folded = tableQueries(run.sent).filter((s) => /-q\d+$/.test(s.options.queryId));
    expect(folded.map((s) => groupOf(s.sql).table).sort()).toEqual(
      ["clean_products", "clean_sales", "customers", "empty_orders", "empty_refs", "events", "orders", "payments"].map(q).sort(),
    );
    // orders has tests without a filter, so no WHERE: each filter conditions its own aggregates.
    const orders = folded.find((s) => groupOf(s.sql).table === q("orders"))!.sql;
    expect(groupOf(orders).filter).toBeNull();
    expect(orders).toContain(`ifNull(countIf(${FILTER}), 0)`);
    expect(orders).toContain("ifNull(countIf(throwIf(1) = 0), 0)");
  });

  it("isolates a filter that fails at run time by bisection: only its own tests fail, the rest are judged", () => {
    // The folded orders query fails (throwIf): it is bisected, its parts tagged <id>-i<n>.
    const orders = tableQueries(run.sent).filter((s) => groupOf(s.sql).table === q("orders"));
    const ordersId = orders.find((s) => groupOf(s.sql).filter === null && s.sql.includes("throwIf"))!.options.queryId;
    const isolation = orders.filter((s) => s.options.queryId.startsWith(`${ordersId}-i`));
    expect(isolation).toHaveLength(orders.length - 1);
    expect(run.isolationQueries).toBe(isolation.length);
    // The table's rows are read alone once, and so is the throwing filter, before it is blamed.
    const probes = isolation.map((s) => s.sql).filter((sql) => /^SELECT count\(\) AS total FROM [^,]*$/.test(sql));
    expect(probes.sort()).toEqual([
      `SELECT count() AS total FROM ${q("orders")}`,
      `SELECT count() AS total FROM ${q("orders")} WHERE (throwIf(1) = 0)`,
    ]);
    // One throwing test among the table's n: 2 * ceil(log2 n) halves, plus the two probes.
    const n = new Set(snapshot.tests.filter((t) => t.table === `${db}.orders` && t.probe.type !== "schema").map((t) => t.key)).size;
    expect(isolation.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(n)) + 2);
    expect(run.sent).toHaveLength(1 + sqlChecks(run.sent).length + 8 + isolation.length + seriesQueries(run.sent).length);
    const failed = run.results.filter((r) => r.outcome === "failed");
    expect(new Set(failed.map((r) => r.metric))).toEqual(new Set(["throwing_filter"]));
    expect(failed.every((r) => r.message.includes("throws on today's data (ClickHouse error 395: "))).toBe(true);
    // The other filters' tests on orders were judged.
    expect(run.results.filter((r) => r.outcome === "not_evaluated" && ["completed_revenue", "order_revenue"].includes(r.metric))).toEqual(
      [],
    );
  });

  it("computes a check shared by several metrics once", () => {
    const folded = tableQueries(run.sent).find((s) => groupOf(s.sql).table === q("orders") && /-q\d+$/.test(s.options.queryId))!.sql;
    // completed_revenue, completed_avg_amount, strict_avg_amount and the derived metric all have it.
    expect(
      run.results.filter((r) => r.rule === "measure_not_null" && r.check === "amount IS NOT NULL" && r.rows_total === 160),
    ).toHaveLength(4);
    expect(folded.split(`(${FILTER}) AND (\`amount\` IS NULL)`)).toHaveLength(2);
    expect(folded.split(`countIf((${FILTER}) AND (`)).toHaveLength(filteredRowChecks + 1);
  });

  it("reads anomaly series with one cadence query per (table, timestamp) and one query per grain", () => {
    const series = seriesQueries(run.sent);
    // orders, clean_sales, events (its String "timestamp" is never read) and empty_orders, whose
    // empty window needs no series query.
    expect(series.filter((s) => s.options.queryId.endsWith("-cadence"))).toHaveLength(4);
    expect(series.filter((s) => s.options.queryId.endsWith("-day"))).toHaveLength(3);
    for (const { sql } of series) expect(sql).not.toMatch(/\bJOIN\b/i);
  });

  it("uses count(), countIf, uniqExact and NOT IN (SELECT ...), never a join", () => {
    for (const { sql } of tableQueries(run.sent)) {
      expect(sql.startsWith("SELECT count() AS total")).toBe(true);
      expect(sql).not.toMatch(/\bJOIN\b/i);
    }
    const orders = tableQueries(run.sent).find((s) => groupOf(s.sql).table === q("orders") && groupOf(s.sql).filter === null)!.sql; // folded
    expect(orders).toContain(`ifNull(countIf(\`amount\` IS NULL), 0)`);
    // orders.customer_id is Nullable(UInt32), customers.id UInt64: 18.16 needs equal types in IN.
    expect(orders).toContain(
      `isNotNull(\`customer_id\`) AND toUInt64(\`customer_id\`) NOT IN (SELECT toUInt64(\`id\`) FROM ${q("customers")})`,
    );
    const customers = tableQueries(run.sent).find((s) => groupOf(s.sql).table === q("customers"))!.sql;
    // customers is read only where orders reach it, per filter: a semi-join, still no JOIN.
    const reach = `toString(\`id\`) IN (SELECT toString(\`customer_id\`) FROM ${q("orders")})`;
    expect(customers).toContain(`(ifNull(countIf(${reach}), 0) - ifNull(uniqExactIf(\`id\`, ${reach}), 0))`);
  });

  it("tags every query with a unique query id derived from the scan id", () => {
    const ids = run.sent.map((s) => s.options.queryId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toBe(`corr-plan-${engine.name}-schema-default`);
    for (const id of ids.slice(1))
      expect(id).toMatch(new RegExp(`^corr-plan-${engine.name}-(q\\d+(-i\\d+)?|sql\\d+|series\\d+-(cadence|day|hour)(-t\\d+)?)$`));
    for (const { options } of run.sent) expect(options.signal).toBeInstanceOf(AbortSignal);
  });

  it("splits a group only past max_query_size, and every part runs on the engine", async () => {
    // A long filter (repeated in every part) leaves room for a few checks per query, so a
    // small table shows the packing right at the engine's real limit.
    const table = `${db}.wide`;
    const defs = Array.from({ length: WIDE_COLUMNS }, (_, i) => `${wideColumn(i)} Nullable(Float64) DEFAULT 1.5`).join(", ");
    await handle!.exec(`CREATE TABLE ${table} (id UInt32, note String, ${defs}) ENGINE = MergeTree() ORDER BY id`);
    await handle!.exec(`INSERT INTO ${table} (id, note) VALUES (1, 'a'), (2, 'b'), (3, 'c')`);
    const last = wideColumn(WIDE_COLUMNS - 1);
    await handle!.exec(`INSERT INTO ${table} (id, note, ${last}) VALUES (4, 'd', NULL)`);
    const measures = Array.from(
      { length: WIDE_COLUMNS },
      (_, i) => `      - { alias: m${i}, function: Sum, column: ${wideColumn(i)} }`,
    ).join("\n");
    const budget = MAX_QUERY_SIZE - QUERY_WRAPPER_BYTES;
    const catalog = (bytes: number) => {
      const filter = `note != '${"x".repeat(bytes)}'`;
      return { filter, yaml: `metrics:\n  - name: wide\n    table: ${table}\n    filter: "${filter}"\n    measures:\n${measures}\n` };
    };
    // Lengthen the filter until the first part is exactly `budget` bytes: the engine must then
    // take it with its own wrapping (it would not, were the query planned up to max_query_size).
    const schema = {
      default: schemaFromRows((await handle!.warehouse.query(schemaQuery([table]), { queryId: "wide-schema" })) as unknown as ColumnRow[]),
    };
    const first = (snap: CatalogSnapshot) =>
      Buffer.byteLength(planScan(snap.tests, schema, { maxQuerySize: MAX_QUERY_SIZE }).queries[0]!.sql);
    const padding = budget - first(await loadYaml({ "wide.yaml": catalog(LONG_FILTER_BYTES).yaml }));
    const { filter, yaml } = catalog(LONG_FILTER_BYTES + padding);
    const snapshot = await loadYaml({ "wide.yaml": yaml });
    expect(snapshot.errors).toEqual([]);
    expect(first(snapshot)).toBe(budget);

    const wide = await runScan(snapshot, handle!.warehouse, { maxQuerySize: MAX_QUERY_SIZE });
    const parts = tableQueries(wide.sent).map((part) => Buffer.byteLength(part.sql));
    const tail = Buffer.byteLength(` FROM \`${db}\`.\`wide\` WHERE (${filter})`);
    const head = Buffer.byteLength("SELECT count() AS total");
    // One query could not hold every check; each part fits, the first one exactly.
    expect(parts.reduce((sum, bytes) => sum + bytes - tail - head, 0)).toBeGreaterThan(budget - tail - head);
    expect(parts.length).toBeGreaterThanOrEqual(2);
    for (const bytes of parts) expect(bytes).toBeLessThanOrEqual(budget);
    expect(parts[0]).toBe(budget);

    // Every part was accepted (nothing "not evaluated"), and the counts are exact.
    expect(wide.results.filter((r) => r.status === "warning")).toEqual([]);
    const failing = wide.results.filter((r) => r.status === "failing");
    expect(failing.map((r) => [r.rule, r.check, r.rows_affected, r.rows_total])).toEqual([
      ["measure_not_null", `${last} IS NOT NULL`, 1, 4],
    ]);
    expect(wide.results).toHaveLength(4 + 3 * WIDE_COLUMNS); // + filter_columns_exist, filter_column_not_null (not applicable: note is never NULL)
  });
});
