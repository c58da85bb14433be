import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/evaluate/evaluate.js";
import type { QueryOutcome } from "../../src/evaluate/types.js";
import type { InferredTest } from "../../src/infer/types.js";
import { planScan } from "../../src/plan/plan-scan.js";
import { SCHEMA, col, makeTest } from "../plan/make-test.js";

const amountNotNull = makeTest({
  rule: "measure_not_null",
  columns: [col("amount")],
  probe: { type: "rows_where", violation: "isNull(`amount`)" },
});
const notEmpty = makeTest({ rule: "table_not_empty", probe: { type: "not_empty" } });
const fresh = makeTest({
  rule: "freshness",
  columns: [col("created_at")],
  probe: { type: "staleness", column: "`created_at`", maxSeconds: 21_600 },
});
const keyUnique = makeTest({
  rule: "join_key_unique",
  table: "shop.customers",
  columns: [col("id", "shop.customers")],
  probe: { type: "duplicate_keys", key: "`id`" },
});

/** Plans `tests`, answers the single query with `row`, and evaluates. */
function run(tests: InferredTest[], row: Record<string, number | string | null> | null, error: string | null = null) {
  const plan = planScan(tests, SCHEMA, { maxQuerySize: 262_144 });
  const outcomes: QueryOutcome[] = plan.queries.map((q) => ({ query_id: q.id, row, error }));
  return evaluate(tests, plan, outcomes, SCHEMA);
}

describe("evaluate: rows_where", () => {
  it("passes with zero violations and reports 0 of N (0.00%)", () => {
    const [r] = run([amountNotNull], { total: "10000", c1: "0" });
    expect(r).toMatchObject({
      status: "passing",
      rows_affected: 0,
      rows_total: 10_000,
      message: "0 of 10,000 rows (0.00%) have NULL amount",
    });
  });

  it("fails HIGH on any violation, converting UInt64 strings", () => {
    const [r] = run([amountNotNull], { total: "10000", c1: "12" });
    expect(r).toMatchObject({
      status: "failing",
      rows_affected: 12,
      rows_total: 10_000,
      message: "12 of 10,000 rows (0.12%) have NULL amount",
    });
  });

  it("is a warning at exactly the tolerance and failing just above it", () => {
    const medium = { ...amountNotNull, severity: "MEDIUM" as const, tolerance: 0.01 };
    expect(run([medium], { total: 300, c1: 3 })[0]!.status).toBe("warning");
    expect(run([medium], { total: 300, c1: 4 })[0]!.status).toBe("failing");
  });

  it("never fails a LOW test", () => {
    const low = { ...amountNotNull, severity: "LOW" as const, tolerance: 0 };
    expect(run([low], { total: 10, c1: 10 })[0]).toMatchObject({ status: "warning", message: "10 of 10 rows (100.00%) have NULL amount" });
  });

  it("shows a tiny share as <0.01% and falls back to the check text for unknown rules", () => {
    const custom = makeTest({
      rule: "custom_rule",
      check: "x > 0",
      columns: [col("amount")],
      probe: { type: "rows_where", violation: "1" },
    });
    expect(run([custom], { total: 1_000_000, c1: 1 })[0]!.message).toBe("1 of 1,000,000 rows (<0.01%) violates: x > 0");
  });

  it("reports a shared check once per metric with each metric's name", () => {
    const other = { ...amountNotNull, metric: "avg_order_value" };
    const results = run([amountNotNull, other], { total: 5, c1: 1 });
    expect(results.map((r) => [r.metric, r.status, r.rows_affected])).toEqual([
      ["gross_revenue", "failing", 1],
      ["avg_order_value", "failing", 1],
    ]);
    expect(results[0]).toMatchObject({
      rule: "measure_not_null",
      check: amountNotNull.check,
      sample_sql: amountNotNull.sample_sql,
      confidence: "high",
    });
  });
});

describe("evaluate: duplicate_keys", () => {
  it("uses the count - uniqExact difference as rows_affected", () => {
    expect(run([keyUnique], { total: "100", c1: "0" })[0]!.status).toBe("passing");
    expect(run([keyUnique], { total: "100", c1: "2" })[0]).toMatchObject({
      status: "failing",
      rows_affected: 2,
      rows_total: 100,
      message: "2 of 100 rows (2.00%) are extra rows with a duplicate id",
    });
  });
});

describe("evaluate: not_empty", () => {
  it("fails on an empty table with rows_affected 1", () => {
    expect(run([notEmpty], { total: "0" })[0]).toMatchObject({
      status: "failing",
      rows_affected: 1,
      rows_total: 0,
      message: "0 rows in shop.orders",
    });
  });
  it("passes with rows and names the filter", () => {
    const filtered = { ...notEmpty, filter: "status = 'completed'" };
    expect(run([filtered], { total: "1234" })[0]).toMatchObject({
      status: "passing",
      rows_affected: 0,
      rows_total: 1234,
      message: "1,234 rows in shop.orders where status = 'completed'",
    });
  });
});

describe("evaluate: staleness", () => {
  const now = 1_700_000_000;
  it("passes when the newest row is within the allowed age", () => {
    expect(run([fresh], { total: "5", c1: String(now - 7_500), c2: String(now) })[0]).toMatchObject({
      status: "passing",
      rows_affected: 0,
      message: "newest row is 2h 5m old (allowed 6h)",
    });
  });
  it("passes at exactly the allowed age, fails past it", () => {
    expect(run([fresh], { total: 5, c1: now - 21_600, c2: now })[0]!.status).toBe("passing");
    expect(run([fresh], { total: 5, c1: now - 266_400, c2: now })[0]).toMatchObject({
      status: "failing",
      rows_affected: 1,
      rows_total: 5,
      message: "newest row is 3d 2h old (allowed 6h)",
    });
  });
  it("fails on an empty table even though max() returned 1970", () => {
    expect(run([fresh], { total: "0", c1: "0", c2: String(now) })[0]).toMatchObject({
      status: "failing",
      message: "no rows, so no freshness (allowed 6h)",
    });
  });
  it("fails when every timestamp is NULL", () => {
    expect(run([fresh], { total: 3, c1: null, c2: now })[0]!.status).toBe("failing");
  });
});

describe("evaluate: schema", () => {
  it("counts missing columns without any query", () => {
    const exist = makeTest({
      rule: "columns_exist",
      columns: [col("amount"), col("discount"), col("id"), col("segment", "shop.customers")],
      probe: { type: "schema" },
    });
    const results = evaluate([exist], planScan([exist], SCHEMA, { maxQuerySize: 1000 }), [], SCHEMA);
    expect(results[0]).toMatchObject({
      status: "failing",
      rows_affected: 1,
      rows_total: 4,
      message: "1 of 4 columns missing: shop.orders.discount",
    });
  });
  it("passes when all columns exist", () => {
    const exist = makeTest({ rule: "columns_exist", columns: [col("amount")], probe: { type: "schema" } });
    expect(evaluate([exist], planScan([exist], SCHEMA, { maxQuerySize: 1000 }), [], SCHEMA)[0]).toMatchObject({
      status: "passing",
      message: "0 of 1 columns missing",
    });
  });
});

describe("evaluate: skipped and failed", () => {
  it("reports a missing column as a warning with the reason", () => {
    const missing = makeTest({ rule: "measure_not_null", columns: [col("x")], probe: { type: "rows_where", violation: "isNull(`x`)" } });
    expect(run([missing], null)[0]).toMatchObject({
      status: "warning",
      rows_affected: 0,
      rows_total: 0,
      message: "not evaluated: column missing: shop.orders.x",
    });
  });
  it("passes a not-applicable float check", () => {
    const onDecimal = makeTest({
      rule: "measure_finite",
      columns: [col("price")],
      probe: { type: "rows_where", violation: "isNaN(`price`)" },
    });
    expect(run([onDecimal], null)[0]).toMatchObject({ status: "passing", message: "not applicable: price is Decimal(18, 2), not a float" });
  });
  it("turns every test of a failed query into a transient warning", () => {
    const results = run([amountNotNull, notEmpty, fresh], null, "Timeout exceeded");
    expect(results.map((r) => [r.status, r.message])).toEqual([
      ["warning", "not evaluated: Timeout exceeded"],
      ["warning", "not evaluated: Timeout exceeded"],
      ["warning", "not evaluated: Timeout exceeded"],
    ]);
  });
  it("warns when a query has no outcome at all", () => {
    const plan = planScan([amountNotNull], SCHEMA, { maxQuerySize: 262_144 });
    expect(evaluate([amountNotNull], plan, [], SCHEMA)[0]).toMatchObject({
      status: "warning",
      message: "not evaluated: no result for query q1",
    });
  });
  it("reads each split query's own row", () => {
    const finite = makeTest({
      rule: "measure_finite",
      columns: [col("amount")],
      probe: { type: "rows_where", violation: "isNaN(`amount`) OR isInfinite(`amount`)" },
    });
    const tests = [amountNotNull, finite];
    const plan = planScan(tests, SCHEMA, { maxQuerySize: 90 });
    expect(plan.queries).toHaveLength(2);
    const outcomes: QueryOutcome[] = [
      { query_id: "q1", row: { total: "10", c1: "0" }, error: null },
      { query_id: "q2", row: { total: "10", c1: "3" }, error: null },
    ];
    expect(evaluate(tests, plan, outcomes, SCHEMA).map((r) => r.rows_affected)).toEqual([0, 3]);
  });
});

describe("evaluate: folded filters", () => {
  it("judges each test against its own filter's row count", () => {
    const completed = { ...amountNotNull, filter: "status = 'completed'", key: "completed-amount" };
    const emptyCompleted = { ...notEmpty, filter: "status = 'completed'", key: "completed-rows" };
    const [all, filtered, rows] = run([amountNotNull, completed, emptyCompleted], { total: "100", c1: "7", c2: "40", c3: "3" });
    expect(all).toMatchObject({ rows_affected: 7, rows_total: 100 });
    expect(filtered).toMatchObject({ rows_affected: 3, rows_total: 40 });
    expect(rows).toMatchObject({ status: "passing", rows_affected: 0, rows_total: 40 });
  });
});
