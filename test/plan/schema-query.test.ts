import { describe, expect, it } from "vitest";
import { schemaFromRows, schemaQuery } from "../../src/plan/schema-query.js";

describe("schemaQuery", () => {
  it("selects exactly the requested tables with an OR-chain (no tuple IN)", () => {
    const sql = schemaQuery(["shop.orders", "shop.customers", "shop.orders"]);
    expect(sql).toBe(
      "SELECT database, table, name, type FROM system.columns WHERE " +
        "(database = 'shop' AND table = 'customers') OR (database = 'shop' AND table = 'orders') ORDER BY database, table, name",
    );
    expect(sql).not.toMatch(/\(database, table\) IN/);
  });

  it("drops names that are not database.table and never emits an empty IN", () => {
    expect(schemaQuery(["orders", "a.b.c", "x'; DROP"])).toContain("WHERE 0");
    expect(schemaQuery([])).toContain("WHERE 0");
  });
});

describe("schemaFromRows", () => {
  it("builds database.table -> column -> type", () => {
    const schema = schemaFromRows([
      { database: "shop", table: "orders", name: "amount", type: "Nullable(Float64)" },
      { database: "shop", table: "orders", name: "id", type: "UInt64" },
      { database: "shop", table: "customers", name: "id", type: "UInt32" },
    ]);
    expect(schema).toEqual({
      "shop.orders": { amount: "Nullable(Float64)", id: "UInt64" },
      "shop.customers": { id: "UInt32" },
    });
  });

  it("returns an empty schema for no rows", () => {
    expect(schemaFromRows([])).toEqual({});
  });
});
