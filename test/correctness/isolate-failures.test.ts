// One bad row must not blind a whole table (issue 13). A dimension declared as a MetricFlow-style
// `cast(ordered_at as DATE)` throws on the 20 rows whose ordered_at is NULL (code 349, on 18.16
// and 26.x alike), which fails the table's one-pass query. The scan bisects it: every other check
// on the table runs with exact counts, the throwing check fails with ClickHouse's error and the
// count of the rows that make it throw, its metrics are unreliable, and the extra queries stay
// within 2 * ceil(log2 n) plus a few probes.
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetrics } from "../../src/metrics/prometheus.js";
import { createScanService } from "../../src/scan/scan-service.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { TestResult } from "../../src/evaluate/types.js";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { uniqueDatabase, type WarehouseHandle, engineCases } from "../helpers/warehouses.js";
import { targets } from "../store/databases.js";
import { loadYaml } from "./fixture-catalog.js";
import { EVENTS, isolationStatements, NULL_TIMES, ORDERS, ORPHANS, UNPARSABLE_DAYS } from "./isolation-warehouse.js";
import { groupOf, runScan, tableQueries, type ScanRun } from "./run-scan.js";

const catalogue = (db: string) => `metrics:
  - name: order_total
    table: ${db}.orders
    timestamp: ordered_at
    measures: [{ alias: total, function: Sum, column: amount }]
    dimensions:
      - { name: ordered_at, column: ordered_at }
      - { name: order_date, expr: "cast(ordered_at as DATE)" }
      - { name: customer, column: name, table: ${db}.customers }
    joins:
      - { table: ${db}.customers, on: { column: customer_id, references: id } }

  # Only the throwing dimension is wrong with it (a MEDIUM check): still unreliable.
  - name: daily_total
    table: ${db}.orders
    measures: [{ alias: total, function: Sum, column: amount }]
    dimensions:
      - { name: order_date, expr: "cast(ordered_at as DATE)" }

  # A day kept as text, with a few values that are no date: toDate() throws on them.
  - name: events_by_day
    table: ${db}.events
    measures: [{ alias: events, function: Count }]
    dimensions:
      - { name: day, expr: "toDate(day_text)" }

  # Shares the table and its checks, not the dimension: untouched by the failure.
  - name: amount_total
    table: ${db}.orders
    measures: [{ alias: total, function: Sum, column: amount }]
`;

describe.each(engineCases)("$name: a check that throws on the data is isolated from its table's query", (engine) => {
  const db = uniqueDatabase("mr_isolate");
  let handle: WarehouseHandle | undefined;
  let snapshot: CatalogSnapshot;
  let run: ScanRun;
  const result = (metric: string, rule: string, check: (c: string) => boolean): TestResult => {
    const found = run.results.filter((r) => r.metric === metric && r.rule === rule && check(r.check));
    expect(found, `${metric} ${rule}`).toHaveLength(1);
    return found[0]!;
  };

  beforeAll(async () => {
    handle = await engine.open();
    await handle.exec(`DROP DATABASE IF EXISTS ${db}`);
    for (const statement of isolationStatements(db)) await handle.exec(statement);
    snapshot = await loadYaml({ "orders.yaml": catalogue(db) });
    expect(snapshot.errors).toEqual([]);
    run = await runScan(snapshot, handle.warehouse, { scanId: `isolate-${engine.name}` });
  });
  afterAll(async () => {
    if (!handle) return;
    await handle.exec(`DROP DATABASE IF EXISTS ${db}`);
    await handle.close();
  });

  it("reports the throwing check as failing, naming the expression, quoting ClickHouse and counting the NULL rows", () => {
    for (const metric of ["order_total", "daily_total"]) {
      const failed = result(metric, "dimension_not_null", (c) => c.startsWith("cast(ordered_at as DATE)"));
      expect(failed).toMatchObject({ outcome: "failed", status: "failing", rows_affected: NULL_TIMES, rows_total: ORDERS });
      expect(failed.message).toMatch(/^failed to compute: the check cast\(ordered_at as DATE\) IS NOT NULL .* throws on today's data/);
      expect(failed.message).toContain("(ClickHouse error 349: Cannot convert NULL value to non-Nullable type");
      expect(failed.message).toMatch(/; 20 of 200 rows \(10\.00%\) have NULL ordered_at$/);
    }
    expect(run.results.filter((r) => r.outcome === "failed")).toHaveLength(3);
  });

  it("counts the strings a conversion cannot read, with a function ClickHouse 18.16 has", () => {
    const failed = result("events_by_day", "dimension_not_null", (c) => c.startsWith("toDate(day_text)"));
    expect(failed).toMatchObject({ outcome: "failed", status: "failing", rows_affected: UNPARSABLE_DAYS, rows_total: EVENTS });
    expect(failed.message).toContain("(ClickHouse error 38: Cannot parse date");
    expect(failed.message).toMatch(/; 5 of 50 rows \(10\.00%\) have a day_text that is not a valid Date$/);
    expect(result("events_by_day", "table_not_empty", () => true)).toMatchObject({ outcome: "measured", rows_total: EVENTS });
  });

  it("runs every other check on the table with exact counts", () => {
    expect(result("order_total", "dimension_not_null", (c) => c.startsWith("ordered_at "))).toMatchObject({
      outcome: "measured",
      status: "failing",
      rows_affected: NULL_TIMES,
      rows_total: ORDERS,
    });
    expect(result("order_total", "join_referential_integrity", () => true)).toMatchObject({
      outcome: "measured",
      status: "failing",
      rows_affected: ORPHANS,
      rows_total: ORDERS,
    });
    expect(result("order_total", "table_not_empty", () => true)).toMatchObject({ status: "passing", rows_total: ORDERS });
    expect(result("order_total", "timestamp_not_future", () => true)).toMatchObject({ status: "passing", rows_total: ORDERS });
    // Nothing else on the table (or anywhere) went unevaluated.
    expect(run.results.filter((r) => r.outcome === "not_evaluated")).toEqual([]);
    expect(run.results.filter((r) => r.metric === "amount_total").every((r) => r.status === "passing")).toBe(true);
  });

  it("makes the metrics whose definition throws unreliable, whatever the check's severity, and leaves the others be", () => {
    const status = Object.fromEntries(run.statuses.map((s) => [s.metric_name, [s.status, s.safe_to_use]]));
    expect(status).toEqual({
      order_total: ["unreliable", false],
      daily_total: ["unreliable", false],
      events_by_day: ["unreliable", false],
      amount_total: ["healthy", true],
    });
  });

  it("bounds the extra queries: 2 * ceil(log2 n) halves, the table's and no filter's probe, one count", () => {
    const orders = tableQueries(run.sent).filter((s) => groupOf(s.sql).table === `\`${db}\`.\`orders\``);
    const folded = orders.filter((s) => /-q\d+$/.test(s.options.queryId));
    expect(folded).toHaveLength(1);
    const extra = orders.filter((s) => /-q\d+-i\d+$/.test(s.options.queryId));
    expect(extra).toHaveLength(orders.length - 1);
    expect(run.isolationQueries).toBe(tableQueries(run.sent).filter((s) => /-q\d+-i\d+$/.test(s.options.queryId)).length);
    // n: the distinct checks the refused query computed (every orders check answered by a query)
    const n = new Set(
      snapshot.tests
        .filter(
          (t, i) => t.table === `${db}.orders` && ["measured", "failed"].includes(run.results[i]!.outcome) && t.probe.type !== "schema",
        )
        .map((t) => t.key),
    ).size;
    expect(n).toBeGreaterThanOrEqual(8);
    expect(extra.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(n)) + 2);
    // the table's rows read alone, and the rows that make the cast throw counted (18.16's functions only)
    expect(extra.map((s) => s.sql)).toContain(`SELECT count() AS total FROM \`${db}\`.\`orders\``);
    expect(extra.map((s) => s.sql)).toContain(`SELECT count() AS total, countIf(isNull(\`ordered_at\`)) AS c1 FROM \`${db}\`.\`orders\``);
  });

  it("goes through the scan service: the failed outcome is stored, the extra queries logged and counted", async () => {
    const db = await targets[targets.length - 1]!.fresh(); // PostgreSQL when DATABASE_URL is set, else PGlite
    const store = await createStore(db.options);
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const metrics = createMetrics();
    const scans = createScanService({
      getSnapshot: () => snapshot,
      warehouses: new Map([["default", handle!.warehouse]]),
      store,
      metrics,
      logger: pino({ level: "info" }, sink),
      concurrency: 2,
      maxQuerySize: 262_144,
      retentionDays: 30,
    });
    try {
      const { scan } = await scans.run("manual");
      expect(scan.status).toBe("succeeded");
      const failedKey = snapshot.tests.find((t) => t.rule === "dimension_not_null" && t.check.startsWith("cast("))!.key;
      const state = await store.readState({ historyLimit: 0 });
      expect(state.observations.get(failedKey)).toMatchObject({ outcome: "failed", rows_affected: NULL_TIMES, rows_total: ORDERS });
      expect(state.statuses.find((s) => s.metric_name === "daily_total")).toMatchObject({ status: "unreliable", safe_to_use: false });
      const logged = lines.find((line) => line.msg === "scan succeeded")!;
      expect(logged.isolation_queries).toBe(run.isolationQueries);
      expect(await metrics.text()).toContain(`metric_reliability_isolation_queries_total ${run.isolationQueries}`);
    } finally {
      await scans.stop();
      await store.close();
      await db.drop();
    }
  });
});
