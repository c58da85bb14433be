import { describe, expect, it } from "vitest";
import { clockDependence, isClockDependent, volatileCall } from "../../src/plan/clock-dependence.js";
import { tablesInSql } from "../../src/plan/sql-tables.js";
import { makeTest } from "./make-test.js";

describe("tablesInSql", () => {
  it("names the tables after FROM, JOIN and IN, quoted or not, in subqueries at any depth", () => {
    expect(tablesInSql("countIf(isNotNull(`customer_id`) AND `customer_id` NOT IN (SELECT `id` FROM `shop`.`customers`))")).toEqual({
      tables: ["shop.customers"],
      opaque: null,
    });
    expect(
      tablesInSql(
        "toString(`id`) IN (SELECT toString(`parent_id`) FROM `db`.`t1` WHERE toString(`x`) IN (SELECT toString(y) FROM db.t0)) AND a IN db.allowed",
      ).tables,
    ).toEqual(["db.allowed", "db.t0", "db.t1"]);
    expect(tablesInSql("x IN (SELECT k FROM a.b AS s ANY LEFT JOIN c.`d` USING (k))").tables).toEqual(["a.b", "c.d"]);
    expect(tablesInSql("amount > 0 AND country IN ('de', 'fr')")).toEqual({ tables: [], opaque: null });
  });

  it("ignores FROM and JOIN inside strings and comments, and ARRAY JOIN", () => {
    expect(tablesInSql("note = 'FROM nowhere' /* FROM x */ -- JOIN y\n AND `from` = 1")).toEqual({ tables: [], opaque: null });
    expect(tablesInSql("k IN (SELECT k FROM db.t ARRAY JOIN tags)").tables).toEqual(["db.t"]);
  });

  it("is opaque where a read cannot be named for sure: table functions, names without a database", () => {
    expect(tablesInSql("k IN (SELECT number FROM numbers(10))").opaque).toMatch(/table function numbers/);
    expect(tablesInSql("k IN (SELECT id FROM customers)").opaque).toMatch(/customers without a database/);
    expect(tablesInSql("EXTRACT(YEAR FROM created_at) = 2026").opaque).not.toBeNull();
    expect(tablesInSql("k IN remote('h', db.t)").opaque).not.toBeNull();
  });
});

describe("clock dependence", () => {
  const rows = (violation: string, filter: string | null = null) =>
    makeTest({ rule: "measure_not_null", probe: { type: "rows_where", violation }, filter });

  it("finds the clock, random numbers and external state in the definition's SQL", () => {
    expect(volatileCall("created_at > now() - 3600")).toBe("now(");
    expect(volatileCall("toDate(ts) = today ()")).toBe("today (");
    expect(volatileCall("ts >= CURRENT_DATE")).toBe("CURRENT_DATE");
    expect(volatileCall("dictGet('d', 'x', k) = 1")).toBe("dictGet(");
    expect(volatileCall("rand() % 10 = 0")).toBe("rand(");
    expect(volatileCall("brand(x) = 'now'")).toBeNull();
    expect(volatileCall("knowledge = 1 AND nowhere = 2")).toBeNull();
  });

  it("classifies each check", () => {
    expect(clockDependence(rows("`amount` IS NULL"))).toBe("none");
    expect(clockDependence(rows("`amount` IS NULL", "created_at >= today() - 7"))).toBe("always");
    expect(clockDependence(rows("(dateDiff('day', ts, now())) IS NULL"))).toBe("always");
    const fresh = makeTest({ rule: "freshness", probe: { type: "staleness", column: "`ts`", maxSeconds: 3600 } });
    expect(clockDependence(fresh)).toBe("staleness");
    const future = makeTest({ rule: "timestamp_not_future", probe: { type: "rows_where", violation: "toDateTime(`ts`) > now() + 300" } });
    expect(clockDependence(future)).toBe("not_future");
    expect(clockDependence({ ...future, filter: "ts > yesterday()" })).toBe("always");
    expect(clockDependence(makeTest({ rule: "volume_anomaly", probe: { type: "not_empty" } }))).toBe("always");
    const series = makeTest({ rule: "metric_value_anomaly", probe: { type: "series" } as never });
    expect(isClockDependent(series)).toBe(true);
    expect(isClockDependent(rows("`amount` < 0"))).toBe(false);
  });
});
