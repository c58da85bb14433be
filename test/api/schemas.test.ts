import { describe, expect, it } from "vitest";
import {
  irListingQuery,
  metricNameInput,
  parseInput,
  scanIdInput,
  scanInput,
  statusListingQuery,
  tableInput,
  testListingQuery,
} from "../../src/api/schemas.js";
import { AppError } from "../../src/errors/app-error.js";

const rejects = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).message;
  }
  throw new Error("expected a rejection");
};

const hostile = ["../../etc/passwd", "'; DROP TABLE x; --", "x".repeat(10_000), "", "Gross_Revenue", "1abc", "a b", "a\u0000b", "ä"];

describe("schemas", () => {
  it("accepts metric names and rejects hostile ones, naming the parameter without echoing it", () => {
    expect(parseInput(metricNameInput, { name: "gross_revenue" }).name).toBe("gross_revenue");
    expect(parseInput(metricNameInput, { name: "a".repeat(128) }).name).toHaveLength(128);
    for (const name of [...hostile, "a".repeat(129)]) {
      const message = rejects(() => parseInput(metricNameInput, { name }));
      expect(message).toMatch(/^invalid parameter "name": /);
      expect(message.length).toBeLessThan(200);
    }
    expect(rejects(() => parseInput(metricNameInput, { name: 42 }))).toContain('"name"');
    expect(rejects(() => parseInput(metricNameInput, undefined))).toMatch(/^invalid input/i);
  });

  it("accepts database.table and bare tables, rejects hostile tables", () => {
    expect(parseInput(tableInput, { table: "shop.orders" }).table).toBe("shop.orders");
    expect(parseInput(tableInput, { table: "Orders_2" }).table).toBe("Orders_2");
    for (const table of [...hostile.filter((h) => !/^[A-Za-z_]\w*$/.test(h)), "a.b.c", "shop.", ".orders", "shop.orders;"]) {
      expect(rejects(() => parseInput(tableInput, { table }))).toMatch(/^invalid parameter "table": /);
    }
  });

  it("accepts UUID scan ids (any case), rejects others", () => {
    const id = "6F1C2B1E-8D1A-4B7E-9C7D-2A4F0E1B3C5D";
    expect(parseInput(scanIdInput, { id }).id).toBe(id.toLowerCase());
    for (const bad of ["123", "../../etc", "x".repeat(10_000), "6f1c2b1e8d1a4b7e9c7d2a4f0e1b3c5d"]) {
      expect(rejects(() => parseInput(scanIdInput, { id: bad }))).toMatch(/^invalid parameter "id": /);
    }
  });

  it("parses wait from query strings and booleans", () => {
    expect(parseInput(scanInput, {}).wait).toBeUndefined();
    expect(parseInput(scanInput, { wait: "true" }).wait).toBe(true);
    expect(parseInput(scanInput, { wait: "false" }).wait).toBe(false);
    expect(parseInput(scanInput, { wait: true }).wait).toBe(true);
    for (const wait of ["yes", "1", ["true", "true"], "TRUE"]) {
      expect(rejects(() => parseInput(scanInput, { wait }))).toMatch(/^invalid parameter "wait": expected true or false/);
    }
  });

  it("parses the list endpoints' pagination and filters from a query string or tRPC input", () => {
    expect(parseInput(testListingQuery, {})).toEqual({});
    expect(
      parseInput(testListingQuery, {
        limit: "25",
        cursor: "opaque",
        metric: "gross_revenue",
        rule: "measure_not_null",
        table: "shop.orders",
      }),
    ).toEqual({
      limit: 25,
      cursor: "opaque",
      metric: "gross_revenue",
      rule: "measure_not_null",
      table: "shop.orders",
    });
    expect(parseInput(statusListingQuery, { limit: 10_000, status: "unreliable" })).toEqual({ limit: 10_000, status: "unreliable" });
    expect(parseInput(irListingQuery, { limit: 1, table: "orders" })).toEqual({ limit: 1, table: "orders" });
    for (const limit of ["0", "10001", "1.5", "abc", "", -1]) {
      expect(rejects(() => parseInput(testListingQuery, { limit }))).toBe(
        'invalid parameter "limit": expected a whole number from 1 to 10000',
      );
    }
    expect(rejects(() => parseInput(statusListingQuery, { cursor: "" }))).toMatch(/^invalid parameter "cursor": /);
    expect(rejects(() => parseInput(statusListingQuery, { cursor: "x".repeat(513) }))).toMatch(/^invalid parameter "cursor": /);
    expect(rejects(() => parseInput(statusListingQuery, { status: "fine" }))).toMatch(
      /^invalid parameter "status": expected healthy, degraded/,
    );
    expect(rejects(() => parseInput(testListingQuery, { rule: "'; DROP" }))).toMatch(/^invalid parameter "rule": /);
    expect(rejects(() => parseInput(irListingQuery, { table: "a.b.c" }))).toMatch(/^invalid parameter "table": /);
  });
});
