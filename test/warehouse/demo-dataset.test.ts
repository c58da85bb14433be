// The demo dataset seeds idempotently on both engines, and every planted defect has exactly
// the count demo/README.md documents (the demo catalogue's expected statuses rest on them).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoDatasetStatements } from "../../src/warehouse/demo-dataset.js";
import { seedDemo, uniqueDatabase, type WarehouseHandle, engineCases } from "../helpers/warehouses.js";

describe("demo dataset statements", () => {
  it("default to the shop database and quote identifiers", () => {
    const statements = demoDatasetStatements();
    expect(statements[0]).toBe("CREATE DATABASE IF NOT EXISTS `shop`");
    expect(statements.join("\n")).not.toMatch(/rand/i);
    expect(() => demoDatasetStatements("shop; DROP")).toThrow(/invalid identifier/);
  });
});

describe.each(engineCases)("$name: demo dataset", (engine) => {
  let handle: WarehouseHandle;
  const db = uniqueDatabase("mr_demo");
  const one = async (sql: string) => (await handle.warehouse.query(sql, { queryId: "demo-check" }))[0] as Record<string, unknown>;

  beforeAll(async () => {
    handle = await engine.open();
    await seedDemo(handle, db);
    await seedDemo(handle, db); // idempotent: drop and recreate
  });
  afterAll(async () => {
    await handle?.exec(`DROP DATABASE IF EXISTS ${db}`);
    await handle?.close();
  });

  it("has the documented row counts", async () => {
    const tables = ["customers", "products", "orders", "refunds", "sessions", "inventory"];
    const sql = tables.map((t) => `(SELECT count() FROM ${db}.${t}) AS ${t}`).join(", ");
    // deliveries and payouts depend on the weekday and the hour of seeding: their own test below.
    expect(await one(`SELECT ${sql}`)).toEqual({
      customers: "301",
      products: "50",
      orders: "5000",
      refunds: "300",
      sessions: "2000",
      inventory: "1000",
    });
    expect(
      await one(
        `SELECT countIf(status = 'completed') AS completed, countIf(status = 'cancelled') AS cancelled, countIf(status = 'pending') AS pending FROM ${db}.orders`,
      ),
    ).toEqual({
      completed: "4000",
      cancelled: "500",
      pending: "500",
    });
  });

  it("customers: 1 duplicate id, 2 NULL/empty countries", async () => {
    expect(
      await one(
        `SELECT count() - uniqExact(id) AS dup, countIf(isNull(country) OR country = '') AS no_country, countIf(segment = '') AS no_segment FROM ${db}.customers`,
      ),
    ).toEqual({
      dup: "1",
      no_country: "2",
      no_segment: "0",
    });
  });

  it("orders: 3 NULL amounts (all completed), 5 orphaned product ids, everything else clean", async () => {
    const row = await one(
      `SELECT countIf(isNull(amount)) AS null_amount, countIf(status = 'completed' AND isNull(amount)) AS null_completed,
        countIf(product_id NOT IN (SELECT id FROM ${db}.products)) AS orphan_product,
        countIf(customer_id NOT IN (SELECT id FROM ${db}.customers)) AS orphan_customer,
        countIf(amount < 0) AS negative, countIf(isNaN(amount) OR isInfinite(amount)) AS not_finite,
        countIf(created_at > now() + 300) AS future, count() - uniqExact(id) AS dup,
        toUInt64(now()) - toUInt64(max(created_at)) <= 60 AS fresh
       FROM ${db}.orders`,
    );
    expect(row).toEqual({
      null_amount: "3",
      null_completed: "3",
      orphan_product: "5",
      orphan_customer: "0",
      negative: "0",
      not_finite: "0",
      future: "0",
      dup: "0",
      fresh: 1,
    });
  });

  it("refunds: 2 negative amounts, 1 future timestamp, no orphans", async () => {
    expect(
      await one(
        `SELECT countIf(amount < 0) AS negative, countIf(created_at > now() + 300) AS future,
          countIf(order_id NOT IN (SELECT id FROM ${db}.orders)) AS orphan FROM ${db}.refunds`,
      ),
    ).toEqual({ negative: "2", future: "1", orphan: "0" });
  });

  it("products and sessions are clean; inventory is 3 days stale", async () => {
    expect(
      await one(
        `SELECT count() - uniqExact(id) AS dup, countIf(price < 0 OR isNaN(price) OR isInfinite(price)) AS bad, countIf(category = '') AS no_category FROM ${db}.products`,
      ),
    ).toEqual({ dup: "0", bad: "0", no_category: "0" });
    expect(
      await one(
        `SELECT countIf(device = '') AS no_device, countIf(started_at > now() + 300) AS future, toUInt64(now()) - toUInt64(max(started_at)) <= 60 AS fresh FROM ${db}.sessions`,
      ),
    ).toEqual({
      no_device: "0",
      future: "0",
      fresh: 1,
    });
    const stale = await one(
      `SELECT toUInt64(now()) - toUInt64(max(snapshot_at)) AS age, countIf(product_id NOT IN (SELECT id FROM ${db}.products)) AS orphan FROM ${db}.inventory`,
    );
    expect(Number(stale.age)).toBeGreaterThanOrEqual(3 * 86400);
    expect(Number(stale.age)).toBeLessThan(3 * 86400 + 60);
    expect(stale.orphan).toBe("0");
  });

  it("deliveries: 10 weeks with a weekly cycle, 12 two days ago; payouts: yesterday's sum 100 times a usual day's", async () => {
    const perDay = async (table: string, column: string, value: string) =>
      (await handle.warehouse.query(
        `SELECT intDiv(toUInt32(now()), 86400) - intDiv(toUInt32(${column}), 86400) AS d, ${value} AS v FROM ${db}.${table} GROUP BY d ORDER BY d`,
        { queryId: "demo-per-day" },
      )) as { d: number | string; v: number | string }[];
    const deliveries = new Map((await perDay("deliveries", "shipped_at", "count()")).map((r) => [Number(r.d), Number(r.v)]));
    expect(Math.max(...deliveries.keys())).toBe(69);
    expect(deliveries.get(2)).toBe(12);
    for (const [d, n] of deliveries) if (d > 0 && d !== 2) expect(n, `day -${d}`).toBeGreaterThanOrEqual(30);
    const payouts = new Map((await perDay("payouts", "paid_at", "sum(amount)")).map((r) => [Number(r.d), Number(r.v)]));
    const usual = [...payouts].filter(([d]) => d > 1).map(([, v]) => v);
    expect(payouts.get(1)!).toBeGreaterThan(50 * Math.max(...usual));
    const rows = new Map((await perDay("payouts", "paid_at", "count()")).map((r) => [Number(r.d), Number(r.v)]));
    expect(rows.get(1)).toBeGreaterThanOrEqual(20);
    expect(await one(`SELECT countIf(shipped_at > now()) AS future FROM ${db}.deliveries`)).toEqual({ future: "0" });
  });

  it("web_orders: 10 weeks by country, no BE rows yesterday while every other country and day has its rows", async () => {
    const rows = (await handle.warehouse.query(
      `SELECT intDiv(toUInt32(now()), 86400) - intDiv(toUInt32(created_at), 86400) AS d, country, count() AS n FROM ${db}.web_orders GROUP BY d, country ORDER BY d, country`,
      { queryId: "demo-web-orders" },
    )) as { d: string | number; country: string; n: string | number }[];
    const n = (d: number, country: string) => Number(rows.find((r) => Number(r.d) === d && r.country === country)?.n ?? 0);
    expect(Math.max(...rows.map((r) => Number(r.d)))).toBe(69);
    expect(n(1, "BE")).toBe(0);
    expect(n(2, "BE")).toBeGreaterThanOrEqual(40);
    for (const country of ["US", "DE", "GB", "FR", "NL"]) expect(n(1, country), country).toBeGreaterThan(0);
    // BE is some 4 % of a day: the day without it still holds the other countries' 1,000 and more.
    const total = (d: number) => rows.filter((r) => Number(r.d) === d).reduce((sum, r) => sum + Number(r.n), 0);
    expect(total(1)).toBeGreaterThan(1000);
    expect(await one(`SELECT countIf(created_at > now()) AS future, count() > 100000 AS many FROM ${db}.web_orders`)).toEqual({
      future: "0",
      many: 1,
    });
  });
});
