import { describe, expect, it } from "vitest";
import { byScannedTable, mergePlans, planScan, QUERY_WRAPPER_BYTES } from "../../src/plan/plan-scan.js";
import { SCHEMA, col, makeTest } from "./make-test.js";

const BIG = 262_144;
const notEmpty = makeTest({ rule: "table_not_empty", probe: { type: "not_empty" } });
const amountNotNull = makeTest({
  rule: "measure_not_null",
  check: "amount IS NOT NULL",
  columns: [col("amount")],
  probe: { type: "rows_where", violation: "isNull(`amount`)" },
});
const amountFinite = makeTest({
  rule: "measure_finite",
  check: "isFinite(amount)",
  columns: [col("amount")],
  probe: { type: "rows_where", violation: "isNaN(`amount`) OR isInfinite(`amount`)" },
});
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

  it("builds one query per (datasource, table) with sorted, deterministic ids", () => {
    const filtered = makeTest({ rule: "table_not_empty", filter: "status = 'completed'", probe: { type: "not_empty" } });
    const plan = planScan([notEmpty, amountNotNull, fresh, keyUnique, filtered], SCHEMA, { maxQuerySize: BIG });
    expect(plan.queries.map((q) => [q.id, q.table, q.filters])).toEqual([
      ["q1", "shop.customers", [null]],
      ["q2", "shop.orders", [null, "status = 'completed'"]],
    ]);
    // id is UInt64: no NULL guards. amount is Nullable(Float64): ifNull stays.
    expect(plan.queries[0]!.sql).toBe("SELECT count() AS total, (count() - uniqExact(`id`)) AS c1 FROM `shop`.`customers`");
    expect(plan.queries[1]!.sql).toBe(
      "SELECT count() AS total, ifNull(countIf(isNull(`amount`)), 0) AS c1, toUInt64(toUnixTimestamp(toDateTime(max(`created_at`)))) AS c2, " +
        "toUInt64(toUnixTimestamp(now())) AS c3, ifNull(countIf(status = 'completed'), 0) AS c4 FROM `shop`.`orders`",
    );
  });

  it("keeps a table with a single filter in its WHERE, with plain aggregates", () => {
    const completed = { ...amountNotNull, filter: "status = 'completed'", key: "completed-amount" };
    const plan = planScan([completed], SCHEMA, { maxQuerySize: BIG });
    expect(plan.queries.map((q) => [q.sql, q.filters])).toEqual([
      [
        "SELECT count() AS total, ifNull(countIf(isNull(`amount`)), 0) AS c1 FROM `shop`.`orders` WHERE (status = 'completed')",
        ["status = 'completed'"],
      ],
    ]);
    expect(plan.queries[0]!.outputs.map((o) => [o.alias, o.part])).toEqual([
      ["total", "total"],
      ["c1", "violations"],
    ]);
  });

  it("folds several filters of one table into conditioned aggregates, reading only rows some filter keeps", () => {
    const on = (filter: string, test: typeof keyUnique) => ({ ...test, filter, key: `${test.key}|${filter}` });
    const nullableKey = makeTest({
      rule: "join_key_unique",
      table: "shop.customers",
      columns: [col("nid", "shop.customers")],
      probe: { type: "duplicate_keys", key: "`nid`" },
    });
    const schema = { default: { ...SCHEMA.default, "shop.customers": { id: "UInt64", nid: "Nullable(UInt64)", segment: "String" } } };
    const plan = planScan([on("segment = 'y'", nullableKey), on("segment = 'x'", keyUnique)], schema, { maxQuerySize: BIG });
    expect(plan.queries).toHaveLength(1);
    expect(plan.queries[0]!.filters).toEqual(["segment = 'x'", "segment = 'y'"]);
    expect(plan.queries[0]!.sql).toBe(
      "SELECT count() AS total, ifNull(countIf(segment = 'y'), 0) AS c1, " +
        "(ifNull(countIf((segment = 'y') AND isNotNull(`nid`)), 0) - ifNull(uniqExactIf(`nid`, (segment = 'y') AND isNotNull(`nid`)), 0)) AS c2, " +
        "ifNull(countIf(segment = 'x'), 0) AS c3, (ifNull(countIf(segment = 'x'), 0) - ifNull(uniqExactIf(`id`, segment = 'x'), 0)) AS c4 " +
        "FROM `shop`.`customers` WHERE ((segment = 'x') OR (segment = 'y'))",
    );

    const completed = "status = 'completed'";
    const mixed = planScan([notEmpty, on(completed, amountNotNull), on(completed, fresh)], SCHEMA, { maxQuerySize: BIG }).queries;
    expect(mixed).toHaveLength(1);
    expect(mixed[0]!.sql).toBe(
      "SELECT count() AS total, ifNull(countIf(status = 'completed'), 0) AS c1, ifNull(countIf((status = 'completed') AND (isNull(`amount`))), 0) AS c2, " +
        "toUInt64(toUnixTimestamp(toDateTime(maxIf(`created_at`, status = 'completed')))) AS c3, toUInt64(toUnixTimestamp(now())) AS c4 FROM `shop`.`orders`",
    );
    // Each test reads its own filter's total.
    const totals = Object.fromEntries(mixed[0]!.outputs.filter((o) => o.part === "total").map((o) => [o.test_key, o.alias]));
    expect(totals).toEqual({ [notEmpty.key]: "total", [`${amountNotNull.key}|${completed}`]: "c1", [`${fresh.key}|${completed}`]: "c1" });
  });

  it("maps every output back to its test key and part", () => {
    const plan = planScan([notEmpty, amountNotNull, fresh], SCHEMA, { maxQuerySize: BIG });
    expect(plan.queries[0]!.outputs).toEqual([
      { alias: "total", test_key: notEmpty.key, part: "total" },
      { alias: "total", test_key: amountNotNull.key, part: "total" },
      { alias: "c1", test_key: amountNotNull.key, part: "violations" },
      { alias: "total", test_key: fresh.key, part: "total" },
      { alias: "c2", test_key: fresh.key, part: "max_ts" },
      { alias: "c3", test_key: fresh.key, part: "now" },
    ]);
  });

  it("computes now() once per query even for several staleness tests", () => {
    const fresh2 = makeTest({
      rule: "freshness",
      key: "k2",
      columns: [col("id")],
      probe: { type: "staleness", column: "`id`", maxSeconds: 60 },
    });
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
    const missingColumn = makeTest({
      rule: "measure_not_null",
      columns: [col("x")],
      probe: { type: "rows_where", violation: "isNull(`x`)" },
    });
    const missingTable = makeTest({ rule: "table_not_empty", table: "shop.gone", probe: { type: "not_empty" } });
    const missingJoined = makeTest({
      rule: "join_referential_integrity",
      columns: [col("customer_id"), col("id", "shop.people")],
      probe: { type: "rows_where", violation: "1" },
    });
    const plan = planScan([missingColumn, missingTable, missingJoined], SCHEMA, { maxQuerySize: BIG });
    expect(plan.skipped).toEqual([
      { test_key: missingColumn.key, outcome: "not_evaluated", reason: "column missing: shop.orders.x" },
      { test_key: missingTable.key, outcome: "not_evaluated", reason: "table missing: shop.gone" },
      { test_key: missingJoined.key, outcome: "not_evaluated", reason: "table missing: shop.people" },
    ]);
    expect(plan.queries).toEqual([]);
  });

  it("treats an unknown datasource as missing tables", () => {
    const elsewhere = { ...notEmpty, datasource: "other", key: "other-key" };
    expect(planScan([elsewhere], SCHEMA, { maxQuerySize: BIG }).skipped[0]).toMatchObject({
      outcome: "not_evaluated",
      reason: "table missing: shop.orders",
    });
  });

  it("runs measure_finite only on Float32/Float64 columns (also Nullable)", () => {
    const onDecimal = makeTest({
      rule: "measure_finite",
      key: "dec",
      columns: [col("price")],
      probe: { type: "rows_where", violation: "isNaN(`price`)" },
    });
    const plan = planScan([amountFinite, onDecimal], SCHEMA, { maxQuerySize: BIG });
    expect(plan.skipped).toEqual([{ test_key: "dec", outcome: "not_applicable", reason: "price is Decimal(18, 2), not a float" }]);
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
    expect(freshQuery.outputs.filter((o) => o.test_key === fresh.key).map((o) => o.part)).toEqual(["total", "max_ts", "now"]);
    expect(split.flatMap((q) => q.outputs.filter((o) => o.part !== "total").map((o) => o.test_key))).toEqual([
      amountNotNull.key,
      amountFinite.key,
      fresh.key,
      fresh.key,
    ]);
  });

  it("counts IN (SELECT ...) subqueries toward the length", () => {
    const longSub = "`customer_id` NOT IN (SELECT `id` FROM `shop`.`customers` WHERE " + "1 = 1 AND ".repeat(30) + "1 = 1)";
    const ri = makeTest({
      rule: "join_referential_integrity",
      columns: [col("customer_id")],
      probe: { type: "rows_where", violation: longSub },
    });
    const plan = planScan([amountNotNull, ri], SCHEMA, { maxQuerySize: 200 + QUERY_WRAPPER_BYTES });
    expect(plan.queries).toHaveLength(2);
    expect(plan.queries[1]!.sql).toContain(longSub);
  });
});

describe("planning one table at a time", () => {
  it("merges per-table plans into exactly the plan of the whole catalogue", () => {
    const filtered = makeTest({ ...amountNotNull, key: "filtered", filter: "status = 'completed'" });
    const tests = [keyUnique, notEmpty, amountNotNull, fresh, keyUnique, columnsExist, filtered, amountFinite];
    const groups = byScannedTable(tests);
    expect(groups.map((g) => g[0]!.table)).toEqual(["shop.customers", "shop.orders"]);
    expect(mergePlans(groups.map((group) => planScan(group, SCHEMA, { maxQuerySize: BIG })))).toEqual(
      planScan(tests, SCHEMA, { maxQuerySize: BIG }),
    );
  });
});
