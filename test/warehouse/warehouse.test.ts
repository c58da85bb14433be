// Both engines behind the same Warehouse contract: typed rows, read-only, time limit,
// cancellation, clear errors, ping.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerWarehouse } from "../../src/warehouse/clickhouse-server.js";
import { WarehouseError } from "../../src/warehouse/warehouse-error.js";
import { serverConnection, uniqueDatabase, type WarehouseHandle, engineCases } from "../helpers/warehouses.js";

async function failure(promise: Promise<unknown>): Promise<WarehouseError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WarehouseError);
  return error as WarehouseError;
}

describe.each(engineCases)("$name warehouse", (engine) => {
  let handle: WarehouseHandle;
  const db = uniqueDatabase("mr_wh");

  beforeAll(async () => {
    handle = await engine.open({ timeoutSeconds: 7 });
    await handle.exec(`CREATE DATABASE IF NOT EXISTS ${db}`);
    await handle.exec(`CREATE TABLE ${db}.t (id UInt32) ENGINE = MergeTree() ORDER BY id`);
    await handle.exec(`INSERT INTO ${db}.t SELECT toUInt32(number) FROM numbers(3)`);
  });
  afterAll(async () => {
    await handle?.exec(`DROP DATABASE IF EXISTS ${db}`);
    await handle?.close();
  });

  it("returns rows with JSON types (64-bit integers as strings on both engines)", async () => {
    const rows = await handle.warehouse.query(
      "SELECT toUInt32(7) AS n, toUInt64(5) AS big, 'x' AS s, 1.5 AS f, CAST(NULL AS Nullable(Float64)) AS nul, toDateTime('2020-01-02 03:04:05') AS t",
      { queryId: "typed-rows" },
    );
    expect(rows).toEqual([{ n: 7, big: "5", s: "x", f: 1.5, nul: null, t: "2020-01-02 03:04:05" }]);
    expect(handle.warehouse.engine).toBe(engine.name);
  });

  it("returns [] for no rows and reads tables", async () => {
    expect(await handle.warehouse.query("SELECT 1 AS x WHERE 0", { queryId: "empty" })).toEqual([]);
    const rows = await handle.warehouse.query(`SELECT count() AS c, sum(id) AS s FROM ${db}.t;`, { queryId: "count" });
    expect(rows).toEqual([{ c: "3", s: "3" }]);
  });

  it("runs every query with readonly=1 and the time limit", async () => {
    const rows = await handle.warehouse.query(
      "SELECT name, value FROM system.settings WHERE name = 'readonly' OR name = 'max_execution_time' ORDER BY name",
      { queryId: "settings" },
    );
    expect(rows).toEqual([
      { name: "max_execution_time", value: "7" },
      { name: "readonly", value: "1" },
    ]);
  });

  it("rejects writes, DDL and smuggled statements", async () => {
    for (const sql of [
      `INSERT INTO ${db}.t SELECT 9`,
      `CREATE TABLE ${db}.u (id UInt32) ENGINE = Memory`,
      `SELECT 1; DROP TABLE ${db}.t`,
      `DROP TABLE ${db}.t /*`,
      `SELECT 1 /* unterminated`,
    ]) {
      const error = await failure(handle.warehouse.query(sql, { queryId: "write" }));
      expect(error.kind).toBe("rejected");
    }
    expect(await handle.warehouse.query(`SELECT count() AS c FROM ${db}.t`, { queryId: "still-there" })).toEqual([{ c: "3" }]);
  });

  it("stops a query at max_execution_time", async () => {
    // sleep() is capped at 3 s on both versions; 18.16 only checks the limit after it returns.
    const error = await failure(handle.warehouse.query("SELECT sleep(3) AS s", { queryId: "slow", timeoutSeconds: 1 }));
    expect(error.kind).toBe("timeout");
    expect(error.clickhouseCode).toBe(159);
    expect(error.message).toMatch(/query slow failed: ClickHouse error 159: Timeout exceeded/);
  });

  it("honours an AbortSignal", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const error = await failure(handle.warehouse.query("SELECT sleep(2) AS s", { queryId: "cancel-me", signal: controller.signal }));
    expect(error.kind).toBe("aborted");
    expect(Date.now() - started).toBeLessThan(1500);
    const before = await failure(handle.warehouse.query("SELECT 1", { queryId: "pre", signal: AbortSignal.abort() }));
    expect(before.kind).toBe("aborted");
  });

  it("reports bad SQL with ClickHouse's text", async () => {
    const unknown = await failure(handle.warehouse.query("SELECT nope FROM system.one", { queryId: "bad-column" }));
    expect(unknown.kind).toBe("query");
    expect(unknown.clickhouseCode).toBe(47);
    expect(unknown.message).toMatch(/query bad-column failed: ClickHouse error 47: .*nope/);
    const syntax = await failure(handle.warehouse.query("SELECT FROM WHERE", { queryId: "bad-syntax" }));
    expect(syntax.clickhouseCode).toBe(62);
    expect(syntax.message).toMatch(/Syntax error/);
  });

  it("pings", async () => {
    expect(await handle.warehouse.ping()).toBe(true);
  });
});

describe("server warehouse without a server", () => {
  it("ping is false and queries fail as connection errors, without credentials in the message", async () => {
    const dead = createServerWarehouse({
      name: "dead",
      url: "http://127.0.0.1:1",
      username: "bob",
      password: "s3cret-pw",
      timeoutSeconds: 5,
    });
    expect(await dead.ping()).toBe(false);
    const error = await failure(dead.query("SELECT 1", { queryId: "dead" }));
    expect(error.kind).toBe("connection");
    expect(error.message).toContain("http://127.0.0.1:1");
    expect(error.message).not.toContain("s3cret-pw");
    await dead.close();
  });
});

describe.runIf(serverConnection())("server warehouse with bad credentials", () => {
  it("fails as a connection error and never echoes the password", async () => {
    const conn = serverConnection()!;
    const wrong = createServerWarehouse({ name: "wrong", url: conn.url, username: "mr_nobody", password: "s3cret-pw", timeoutSeconds: 5 });
    expect(await wrong.ping()).toBe(false);
    const error = await failure(wrong.query("SELECT 1", { queryId: "auth" }));
    expect(error.kind).toBe("connection");
    expect(error.message).not.toContain("s3cret-pw");
    await wrong.close();
  });
});
