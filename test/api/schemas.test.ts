import { describe, expect, it } from "vitest";
import { metricNameInput, parseInput, scanIdInput, scanInput, tableInput } from "../../src/api/schemas.js";
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
});
