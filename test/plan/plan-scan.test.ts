import { describe, expect, it } from "vitest";
import { planScan, QUERY_WRAPPER_BYTES } from "../../src/plan/plan-scan.js";
import { SCHEMA, col, makeTest } from "./make-test.js";

const BIG = 262_144;
const notEmpty = makeTest({ rule: "table_not_empty", probe: { type: "not_empty" } });
const amountNotNull = makeTest({ rule: "measure_not_null", check: "amount IS NOT NULL", columns: [col("amount")], probe: { type: "rows_where", violation: "isNull(`amount`)" } });
const amountFinite = makeTest({ rule: "measure_finite", check: "isFinite(amount)", columns: [col("amount")], probe: { type: "rows_where", violation: "isNaN(`amount`) OR isInfinite(`amount`)" } });
const fresh = makeTest({ rule: "freshness", columns: [col("created_at")], probe: { type: "staleness", column: "`created_at`", maxSeconds: 21_600 } });
const keyUnique = makeTest({ rule: "join_key_unique", table: "shop.customers", columns: [col("id", "shop.customers")], probe: { type: "duplicate_keys", key: "`id`" } });
const columnsExist = makeTest({ rule: "columns_exist", columns: [col("amount"), col("discount")], probe: { type: "schema" } });

describe("planScan", () => {
  it("dedupes tests shared across metrics by key", () => {
    const other = { ...amountNotNull, metric: "avg_order_value" };
    const plan = planScan([amountNotNull, other, notEmpty], SCHEMA, { maxQuerySize: BIG });
    expect(plan.tests.map((t) => t.key)).toEqual([amountNotNull.key, notEmpty.key]);
    expect(plan.tests[0]!.metric).toBe("gross_revenue");
    expect(plan.queries).toHaveLength(1);
    expect(plan.queries[0]!.sql.match(/isNull/g)).toHaveLength(1);
  });

  it("builds one query per (datasource, table, filter) with sorted, deterministic ids", () => {
    const filtered = makeTest({ rule: "table_not_empty", filter: "status = 'completed'", probe: { type: "not_empty" } });
    const plan = planScan([notEmpty, amountNotNull, fresh, keyUnique, filtered], SCHEMA, { maxQuerySize: BIG });
    expect(plan.queries.map((q) => [q.id, q.table, q.filter])).toEqual([
      ["q1", "shop.customers", null],
      ["q2", "shop.orders", null],
      ["q3", "shop.orders", "status = 'completed'"],
    ]);
    expect(plan.queries[0]!.sql).toBe("SELECT count() AS total, (countIf(isNotNull(`id`)) - ifNull(uniqExact(`id`), 0)) AS c1 FROM `shop`.`customers`");
    expect(plan.queries[1]!.sql).toBe(
      "SELECT count() AS total, ifNull(countIf(isNull(`amount`)), 0) AS c1, toUInt64(toUnixTimestamp(toDateTime(max(`created_at`)))) AS c2, " +
        "toUInt64(toUnixTimestamp(now())) AS c3 FROM `shop`.`orders`",
    );
    expect(plan.queries[2]!.sql).toBe("SELECT count() AS total FROM `shop`.`orders` WHERE (status = 'completed')");
  });

  it("maps every output back to its test key and part", () => {
    const plan = planScan([notEmpty, amountNotNull, fresh], SCHEMA, { maxQuerySize: BIG });
    expect(plan.queries[0]!.outputs).toEqual([
      { alias: "total", test_key: notEmpty.key, part: "rows" },
      { alias: "c1", test_key: amountNotNull.key, part: "violations" },
      { alias: "c2", test_key: fresh.key, part: "max_ts" },
      { alias: "c3", test_key: fresh.key, part: "now" },
    ]);
  });

  it("computes now() once per query even for several staleness tests", () => {
    const fresh2 = makeTest({ rule: "freshness", key: "k2", columns: [col("id")], probe: { type: "staleness", column: "`id`", maxSeconds: 60 } });
    const sql = planScan([fresh, fresh2], SCHEMA, { maxQuerySize: BIG }).queries[0]!.sql;
    expect(sql.match(/now\(\)/g)).toHaveLength(1);
  });

  it("never queries schema probes and does not skip them", () => {
    const plan = planScan([columnsExist], SCHEMA, { maxQuerySize: BIG });
    expect(plan.queries).toEqual([]);
    expect(plan.skipped).toEqual([]);
    expect(plan.tests).toEqual([columnsExist]);
  });

  it("skips tests whose column or table is missing", () => {
    const missingColumn = makeTest({ rule: "measure_not_null", columns: [col("x")], probe: { type: "rows_where", violation: "isNull(`x`)" } });
    const missingTable = makeTest({ rule: "table_not_empty", table: "shop.gone", probe: { type: "not_empty" } });
    const missingJoined = makeTest({ rule: "join_referential_integrity", columns: [col("customer_id"), col("id", "shop.people")], probe: { type: "rows_where", violation: "1" } });
    const plan = planScan([missingColumn, missingTable, missingJoined], SCHEMA, { maxQuerySize: BIG });
    expect(plan.skipped).toEqual([
      { test_key: missingColumn.key, reason: "not evaluated: column missing: shop.orders.x" },
      { test_key: missingTable.key, reason: "not evaluated: table missing: shop.gone" },
      { test_key: missingJoined.key, reason: "not evaluated: table missing: shop.people" },
    ]);
    expect(plan.queries).toEqual([]);
  });

  it("treats an unknown datasource as missing tables", () => {
    const elsewhere = { ...notEmpty, datasource: "other", key: "other-key" };
    expect(planScan([elsewhere], SCHEMA, { maxQuerySize: BIG }).skipped[0]!.reason).toBe("not evaluated: table missing: shop.orders");
  });

  it("runs measure_finite only on Float32/Float64 columns (also Nullable)", () => {
    const onDecimal = makeTest({ rule: "measure_finite", key: "dec", columns: [col("price")], probe: { type: "rows_where", violation: "isNaN(`price`)" } });
    const plan = planScan([amountFinite, onDecimal], SCHEMA, { maxQuerySize: BIG });
    expect(plan.skipped).toEqual([{ test_key: "dec", reason: "not applicable: price is Decimal(18, 2), not a float" }]);
    expect(plan.queries[0]!.sql).toContain("isNaN(`amount`) OR isInfinite(`amount`)");
  });

  it("splits a group only when it would exceed maxQuerySize, repeating count() AS total", () => {
    const tests = [amountNotNull, amountFinite, fresh];
    const whole = planScan(tests, SCHEMA, { maxQuerySize: BIG }).queries;
    expect(whole).toHaveLength(1);
    // The warehouse's own wrapping (query-id comment, SETTINGS, FORMAT) must fit as well.
    const exact = planScan(tests, SCHEMA, { maxQuerySize: whole[0]!.sql.length + QUERY_WRAPPER_BYTES }).queries;
    expect(exact).toHaveLength(1);
    expect(planScan(tests, SCHEMA, { maxQuerySize: whole[0]!.sql.length + QUERY_WRAPPER_BYTES - 1 }).queries).toHaveLength(2);

    const split = planScan(tests, SCHEMA, { maxQuerySize: 120 }).queries;
    expect(split.length).toBeGreaterThan(1);
    expect(split.map((q) => q.id)).toEqual(split.map((_, i) => `q${i + 1}`));
    for (const query of split) {
      expect(query.sql.startsWith("SELECT count() AS total")).toBe(true);
      expect(query.sql.endsWith(" FROM `shop`.`orders`")).toBe(true);
    }
    // A staleness test keeps max_ts and now in the same query.
    const freshQuery = split.find((q) => q.outputs.some((o) => o.test_key === fresh.key))!;
    expect(freshQuery.outputs.filter((o) => o.test_key === fresh.key).map((o) => o.part)).toEqual(["max_ts", "now"]);
    expect(split.flatMap((q) => q.outputs.map((o) => o.test_key))).toEqual([amountNotNull.key, amountFinite.key, fresh.key, fresh.key]);
  });

  it("counts IN (SELECT ...) subqueries toward the length", () => {
    const longSub = "`customer_id` NOT IN (SELECT `id` FROM `shop`.`customers` WHERE " + "1 = 1 AND ".repeat(30) + "1 = 1)";
    const ri = makeTest({ rule: "join_referential_integrity", columns: [col("customer_id")], probe: { type: "rows_where", violation: longSub } });
    const plan = planScan([amountNotNull, ri], SCHEMA, { maxQuerySize: 200 + QUERY_WRAPPER_BYTES });
    expect(plan.queries).toHaveLength(2);
    expect(plan.queries[1]!.sql).toContain(longSub);
  });
});
