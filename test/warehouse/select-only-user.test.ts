// The README's warehouse user for servers without SQL access control (Debian's 18.16): a users.d
// entry limited to the analytic database. The daemon's queries (ping, schema, scans) work as that
// user; another database does not. Runs on a ClickHouse of the test's own (its users.d changes).
import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerWarehouse, execServer } from "../../src/warehouse/clickhouse-server.js";
import { demoDatasetStatements } from "../../src/warehouse/demo-dataset.js";
import type { Warehouse } from "../../src/warehouse/warehouse.js";
import { WarehouseError } from "../../src/warehouse/warehouse-error.js";
import { startPrivateClickHouse, type PrivateClickHouse } from "../helpers/private-clickhouse.js";

const PASSWORD = "select-only-password";
// As in README.md, "The warehouse user".
const usersXml = `<yandex><users><metric_reliability>
  <password_sha256_hex>${createHash("sha256").update(PASSWORD).digest("hex")}</password_sha256_hex>
  <networks><ip>::/0</ip></networks>
  <profile>default</profile><quota>default</quota>
  <allow_databases><database>shop</database></allow_databases>
</metric_reliability></users></yandex>
`;

describe.runIf(process.env.CLICKHOUSE_URL || process.env.CI)("a SELECT-only ClickHouse user (users.d, allow_databases)", () => {
  let ch: PrivateClickHouse;
  let warehouse: Warehouse;

  beforeAll(async () => {
    ch = await startPrivateClickHouse();
    await execServer({ url: ch.url }, [
      ...demoDatasetStatements(),
      "CREATE DATABASE hr",
      "CREATE TABLE hr.salaries (x UInt32) ENGINE = Memory",
    ]);
    await mkdir(path.join(ch.dir, "users.d"), { recursive: true });
    await writeFile(path.join(ch.dir, "users.d", "metric_reliability.xml"), usersXml);
    warehouse = createServerWarehouse({
      name: "default",
      url: ch.url,
      username: "metric_reliability",
      password: PASSWORD,
      timeoutSeconds: 10,
    });
    // The server reloads its users files on its own within seconds.
    for (let i = 0; i < 60 && !(await warehouse.ping()); i++) await sleep(500);
  });
  afterAll(async () => {
    await warehouse?.close();
    await ch?.dispose();
  });

  it("runs the daemon's queries: ping, the schema read from system.columns, and scans of the analytic database", async () => {
    expect(await warehouse.ping()).toBe(true);
    const columns = await warehouse.query("SELECT count() AS c FROM system.columns WHERE database = 'shop' AND table = 'orders'", {
      queryId: "schema",
    });
    expect(Number(columns[0]!.c)).toBeGreaterThan(3);
    expect(await warehouse.query("SELECT count() AS c FROM shop.orders", { queryId: "scan" })).toEqual([{ c: "5000" }]);
  });

  it("cannot read another database", async () => {
    const error = await warehouse.query("SELECT count() AS c FROM hr.salaries", { queryId: "other" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WarehouseError);
    expect((error as Error).message).toMatch(/ClickHouse error 291: .*hr/); // DATABASE_ACCESS_DENIED
  });
});
