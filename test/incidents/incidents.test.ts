// The incidents stage on plain values: failing tests -> problems per root table -> changes to the
// open incidents, and what Prometheus is told about them.
import { describe, expect, it } from "vitest";
import { incidentSamples, metricTables } from "../../src/incidents/alert-labels.js";
import { failingTests, rootColumn } from "../../src/incidents/failing-tests.js";
import { groupProblems, rootLabel } from "../../src/incidents/group-problems.js";
import { reconcileIncidents } from "../../src/incidents/reconcile.js";
import type { Incident, TableProblem } from "../../src/incidents/types.js";
import type { CheckObservation } from "../../src/evaluate/types.js";
import { col, makeTest } from "../plan/make-test.js";
import { derived, ir } from "../services/fixtures.js";

const notNull = (metric: string, column = "amount", table = "shop.orders") =>
  makeTest({
    metric,
    rule: "measure_not_null",
    check: `${column} IS NOT NULL`,
    table,
    columns: [col(column, table)],
    probe: { type: "rows_where", violation: `${column} IS NULL` },
  });
const nonNegative = (metric: string) =>
  makeTest({
    metric,
    rule: "measure_non_negative",
    check: "amount >= 0",
    severity: "MEDIUM",
    tolerance: 0.01,
    columns: [col("amount")],
    probe: { type: "rows_where", violation: "amount < 0" },
  });
const keyUnique = (metric: string) =>
  makeTest({
    metric,
    rule: "join_key_unique",
    check: "id is unique",
    table: "shop.customers",
    columns: [col("id", "shop.customers")],
    probe: { type: "duplicate_keys", key: "id" },
  });

const measured = (rows_affected: number, rows_total = 1000): CheckObservation => ({
  outcome: "measured",
  rows_affected,
  rows_total,
  message: `${rows_affected} of ${rows_total} rows`,
});

const T0 = new Date("2026-11-26T10:00:00Z");
const T1 = new Date("2026-11-26T10:15:00Z");
const T2 = new Date("2026-11-26T10:30:00Z");
let ids = 0;
const context = (at: Date, scanId = `scan-${at.toISOString()}`) => ({ at, scanId, newId: () => `incident-${++ids}` });

describe("failingTests", () => {
  it("keeps only (metric, test) pairs judged failing, with their root table and column", () => {
    const tests = [notNull("revenue"), notNull("orders"), nonNegative("revenue"), keyUnique("revenue")];
    const observations = new Map([
      [tests[0]!.key, measured(3)],
      [tests[2]!.key, measured(5)], // 0.5% of rows: within MEDIUM's 1% tolerance
      [tests[3]!.key, measured(0)],
    ]);
    const failing = failingTests(tests, observations);
    expect(failing.map((f) => [f.metric, f.rule, f.table, f.column])).toEqual([
      ["revenue", "measure_not_null", "shop.orders", "amount"],
      ["orders", "measure_not_null", "shop.orders", "amount"],
    ]);
  });

  it("never counts a test that was not evaluated, nor one of a blocked metric", () => {
    const tests = [notNull("revenue"), notNull("orders", "price")];
    const observations = new Map<string, CheckObservation>([
      [tests[0]!.key, { outcome: "not_evaluated", rows_affected: 0, rows_total: 0, message: "column missing" }],
      [tests[1]!.key, measured(9)],
    ]);
    expect(failingTests(tests, observations)).toHaveLength(1);
    expect(failingTests(tests, observations, new Map([["orders", "filter does not parse"]]))).toEqual([]);
  });

  it("a check whose SQL throws on the data fails and is kept with its outcome", () => {
    const test = notNull("revenue");
    const failing = failingTests(
      [test],
      new Map([[test.key, { outcome: "failed", rows_affected: 0, rows_total: 0, message: "Cannot convert NULL" }]]),
    );
    expect(failing[0]?.outcome).toBe("failed");
  });

  it("names the root column only when the test reads exactly one column of its table", () => {
    expect(rootColumn({ table: "shop.orders", columns: [col("amount")] })).toBe("amount");
    expect(rootColumn({ table: "shop.orders", columns: [col("amount"), col("country")] })).toBeNull();
    expect(rootColumn({ table: "shop.orders", columns: [] })).toBeNull();
    expect(rootColumn({ table: "shop.orders", columns: [col("segment", "shop.customers")] })).toBeNull();
  });
});

describe("groupProblems", () => {
  const catalogue = [
    ir({ name: "revenue" }),
    ir({ name: "orders" }),
    ir({ name: "refunds" }),
    derived("revenue_per_order", ["revenue", "orders"]),
    derived("ratio_of_ratio", ["revenue_per_order"]),
  ];

  it("one problem per root table, with every metric it touches and the worst impact", () => {
    const tests = [notNull("revenue"), nonNegative("orders"), nonNegative("revenue"), keyUnique("refunds")];
    const all = new Map(tests.map((t) => [t.key, measured(500)]));
    const problems = groupProblems(failingTests(tests, all), catalogue);
    expect(problems.map((p) => p.table)).toEqual(["shop.customers", "shop.orders"]);
    const orders = problems[1]!;
    expect(orders.tests.map((t) => t.rule)).toEqual(["measure_not_null", "measure_non_negative"]);
    expect(orders.metrics).toEqual([
      { metric_name: "revenue", impact: "unreliable", relationship: "direct" },
      { metric_name: "orders", impact: "degraded", relationship: "direct" },
      // built on both: the worst of its inputs, then transitively
      { metric_name: "revenue_per_order", impact: "unreliable", relationship: "derived" },
      { metric_name: "ratio_of_ratio", impact: "unreliable", relationship: "derived" },
    ]);
    expect(problems[0]!.metrics.map((m) => m.metric_name)).toEqual(["refunds"]);
  });

  it("a check shared by metrics is one test, with the highest severity any metric gives it", () => {
    const low = { ...notNull("orders"), severity: "MEDIUM" as const, tolerance: 0 };
    const high = notNull("revenue");
    const problems = groupProblems(failingTests([low, high], new Map([[high.key, measured(1)]])), catalogue);
    expect(problems[0]!.tests).toEqual([
      { check_key: high.key, rule: "measure_not_null", name: low.name, check: "amount IS NOT NULL", column: "amount", severity: "HIGH" },
    ]);
  });

  it("tables of other datasources stay apart, and nothing failing is no problem", () => {
    const other = { ...notNull("revenue"), datasource: "eu", key: "eu|shop.orders||measure_not_null|amount IS NOT NULL" };
    const problems = groupProblems(
      failingTests(
        [notNull("orders"), other],
        new Map([
          [other.key, measured(1)],
          [notNull("orders").key, measured(1)],
        ]),
      ),
      catalogue,
    );
    expect(problems.map((p) => rootLabel(p.datasource, p.table))).toEqual(["eu:shop.orders", "shop.orders"]);
    expect(groupProblems([], catalogue)).toEqual([]);
  });
});

const problem = (table: string, checks: string[], metrics: [string, "unreliable" | "degraded"][]): TableProblem => ({
  datasource: "default",
  table,
  tests: checks.map((key) => ({ check_key: key, rule: "measure_not_null", name: key, check: key, column: null, severity: "HIGH" })),
  metrics: metrics.map(([metric_name, impact]) => ({ metric_name, impact, relationship: "direct" })),
});

describe("reconcileIncidents", () => {
  it("opens one incident per broken table, listing its tests and metrics", () => {
    const [incident, ...rest] = reconcileIncidents(
      [],
      [
        problem(
          "shop.orders",
          ["a", "b"],
          [
            ["revenue", "unreliable"],
            ["orders", "degraded"],
          ],
        ),
      ],
      context(T0, "s0"),
    );
    expect(rest).toEqual([]);
    expect(incident).toMatchObject({
      table: "shop.orders",
      opened_at: T0,
      resolved_at: null,
      opened_scan_id: "s0",
      resolved_scan_id: null,
    });
    expect(incident!.tests.map((t) => [t.check_key, t.since, t.until])).toEqual([
      ["a", T0, null],
      ["b", T0, null],
    ]);
    expect(incident!.metrics.map((m) => [m.metric_name, m.impact, m.until])).toEqual([
      ["revenue", "unreliable", null],
      ["orders", "degraded", null],
    ]);
  });

  it("problems on the same table that overlap in time stay one incident; an unchanged scan changes nothing", () => {
    const [opened] = reconcileIncidents([], [problem("shop.orders", ["a"], [["revenue", "unreliable"]])], context(T0));
    // Same problem again: nothing to write.
    expect(reconcileIncidents([opened!], [problem("shop.orders", ["a"], [["revenue", "unreliable"]])], context(T1))).toEqual([]);
    // A second test starts failing while the first still does, then the first stops: one incident throughout.
    const [grown] = reconcileIncidents(
      [opened!],
      [
        problem(
          "shop.orders",
          ["a", "b"],
          [
            ["revenue", "unreliable"],
            ["orders", "degraded"],
          ],
        ),
      ],
      context(T1),
    );
    expect(grown!.id).toBe(opened!.id);
    expect(grown!.tests.map((t) => [t.check_key, t.since])).toEqual([
      ["a", T0],
      ["b", T1],
    ]);
    const [shrunk] = reconcileIncidents([grown!], [problem("shop.orders", ["b"], [["orders", "degraded"]])], context(T2));
    expect(shrunk).toMatchObject({ id: opened!.id, resolved_at: null, updated_at: T2 });
    expect(shrunk!.tests.map((t) => [t.check_key, t.until])).toEqual([
      ["a", T2],
      ["b", null],
    ]);
    expect(shrunk!.metrics.map((m) => [m.metric_name, m.until])).toEqual([
      ["revenue", T2],
      ["orders", null],
    ]);
    // A metric's impact is the one it has now (the gauge counts metrics made unreliable now).
    const [worse] = reconcileIncidents([shrunk!], [problem("shop.orders", ["b"], [["orders", "unreliable"]])], context(T2));
    expect(worse!.metrics.find((m) => m.metric_name === "orders")!.impact).toBe("unreliable");
    const [better] = reconcileIncidents([worse!], [problem("shop.orders", ["b"], [["orders", "degraded"]])], context(T2));
    expect(better!.metrics.find((m) => m.metric_name === "orders")!.impact).toBe("degraded");
  });

  it("the scan that sees the last problem end resolves it; a later problem opens a new incident", () => {
    const [opened] = reconcileIncidents([], [problem("shop.orders", ["a"], [["revenue", "unreliable"]])], context(T0));
    const [resolved] = reconcileIncidents([opened!], [], context(T1, "s1"));
    expect(resolved).toMatchObject({ id: opened!.id, resolved_at: T1, resolved_scan_id: "s1" });
    expect(resolved!.tests[0]!.until).toEqual(T1);
    expect(resolved!.metrics[0]!.until).toEqual(T1);
    // A resolved incident is never reopened: the next problem is a new incident.
    const [next] = reconcileIncidents([resolved!], [problem("shop.orders", ["a"], [["revenue", "unreliable"]])], context(T2));
    expect(next!.id).not.toBe(opened!.id);
    expect(next!.opened_at).toEqual(T2);
  });

  it("each table's incident has its own life", () => {
    const opened = reconcileIncidents(
      [],
      [problem("shop.customers", ["k"], [["revenue", "unreliable"]]), problem("shop.orders", ["a"], [["revenue", "unreliable"]])],
      context(T0),
    );
    expect(opened.map((i) => i.table)).toEqual(["shop.customers", "shop.orders"]);
    const changed = reconcileIncidents(opened, [problem("shop.orders", ["a"], [["revenue", "unreliable"]])], context(T1));
    expect(changed.map((i) => [i.table, i.resolved_at])).toEqual([["shop.customers", T1]]);
  });
});

describe("what Prometheus is told", () => {
  const open = (table: string, metrics: [string, "unreliable" | "degraded", Date | null][]): Incident => ({
    id: table,
    datasource: "default",
    table,
    opened_at: T0,
    resolved_at: null,
    opened_scan_id: "s0",
    resolved_scan_id: null,
    updated_at: T0,
    tests: [],
    metrics: metrics.map(([metric_name, impact, until]) => ({ metric_name, impact, relationship: "direct", since: T0, until })),
  });

  it("one sample per open incident: the metrics it makes unreliable now, and those it affects", () => {
    const incidents = [
      open("shop.orders", [
        ["a", "unreliable", null],
        ["b", "degraded", null],
        ["c", "unreliable", T1],
      ]),
      { ...open("shop.refunds", [["d", "unreliable", null]]), resolved_at: T1 },
    ];
    expect(incidentSamples(incidents)).toEqual([{ table: "shop.orders", unreliable: 1, affected: 2 }]);
  });

  it("a metric the open incidents explain carries one table label; the first when two tables explain it", () => {
    const incidents = [
      open("shop.orders", [
        ["a", "unreliable", null],
        ["b", "unreliable", null],
        ["c", "unreliable", T1],
      ]),
      open("shop.customers", [["b", "unreliable", null]]),
    ];
    expect(Object.fromEntries(metricTables(incidents))).toEqual({ a: "shop.orders", b: "shop.customers" });
    expect(metricTables([{ ...incidents[0]!, resolved_at: T1 }]).size).toBe(0);
  });
});
