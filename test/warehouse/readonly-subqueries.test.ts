// Catalogue filters may hold subqueries, so whatever the daemon's ClickHouse user can read, a
// catalogue writer can read too. readonly=1 on every query is what keeps those subqueries from
// reading server files or reaching other hosts (table functions), on both engines; a SELECT-only
// user (README, "The warehouse user") narrows what they can read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WarehouseError } from "../../src/warehouse/warehouse-error.js";
import { type WarehouseHandle, engineCases } from "../helpers/warehouses.js";

describe.each(engineCases)("$name warehouse: subqueries under readonly=1", (engine) => {
  let handle: WarehouseHandle;
  beforeAll(async () => {
    handle = await engine.open();
  });
  afterAll(async () => {
    await handle?.close();
  });

  it("cannot read server files or fetch URLs through table functions", async () => {
    for (const inner of [
      "SELECT count() FROM file('/etc/hostname', 'TSV', 'line String')",
      "SELECT count() FROM url('http://127.0.0.1:1/x', 'CSV', 'a String')",
    ]) {
      const error = await handle.warehouse
        .query(`SELECT count() AS c FROM system.one WHERE (${inner}) >= 0`, { queryId: "readonly-subquery" })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(error, inner).toBeInstanceOf(WarehouseError);
      expect((error as WarehouseError).clickhouseCode, (error as Error).message).toBe(164); // READONLY
    }
  });
});
