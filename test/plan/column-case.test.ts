// Column names matched ignoring letter case: rewriting SQL touches names only, never strings,
// functions or qualified table names; one match is resolved, two are left missing.
import { describe, expect, it } from "vitest";
import { renameColumns, resolveColumnCase } from "../../src/plan/column-case.js";
import type { InferredTest } from "../../src/infer/types.js";

describe("renameColumns", () => {
  const renames = new Map([
    ["amount", "Amount"],
    ["orders", "Orders"],
    ["sum", "Sum"],
  ]);
  it("renames bare, backticked and double-quoted names", () => {
    expect(renameColumns('amount > 0 AND `amount` < 9 AND "amount" != 1', renames)).toBe('Amount > 0 AND `Amount` < 9 AND "Amount" != 1');
  });
  it("leaves strings, function names and qualified names alone", () => {
    expect(renameColumns("status = 'amount' AND sum(amount) > 0", renames)).toBe("status = 'amount' AND sum(Amount) > 0");
    expect(renameColumns("SELECT `amount` FROM `db`.`orders` WHERE x.orders = 1", renames)).toBe(
      "SELECT `Amount` FROM `db`.`orders` WHERE x.orders = 1",
    );
    expect(renameColumns("note = 'it''s amount' OR amount IS NULL", renames)).toBe("note = 'it''s amount' OR Amount IS NULL");
  });
});

const test = (over: Partial<InferredTest>): InferredTest => ({
  key: "default|db.t||measure_not_null|amount IS NOT NULL",
  metric: "m",
  rule: "measure_not_null",
  name: "amount is never NULL",
  check: "amount IS NOT NULL",
  severity: "HIGH",
  confidence: "high",
  tolerance: 0,
  datasource: "default",
  table: "db.t",
  filter: "status = 'paid'",
  columns: [{ table: "db.t", column: "amount" }],
  filter_columns: [{ table: "db.t", column: "status" }],
  probe: { type: "rows_where", violation: "`amount` IS NULL" },
  sample_sql: "SELECT * FROM `db`.`t` WHERE (status = 'paid') AND (`amount` IS NULL) LIMIT 10",
  ...over,
});

describe("resolveColumnCase", () => {
  it("reads a name that matches one column ignoring case as that column, and says so", () => {
    const schema = { default: { "db.t": { Amount: "Float64", STATUS: "String" } } };
    const { tests, matches } = resolveColumnCase([test({})], schema);
    expect(tests[0]).toMatchObject({
      key: "default|db.t||measure_not_null|amount IS NOT NULL",
      check: "amount IS NOT NULL",
      filter: "STATUS = 'paid'",
      columns: [{ table: "db.t", column: "Amount" }],
      filter_columns: [{ table: "db.t", column: "STATUS" }],
      probe: { type: "rows_where", violation: "`Amount` IS NULL" },
      sample_sql: "SELECT * FROM `db`.`t` WHERE (STATUS = 'paid') AND (`Amount` IS NULL) LIMIT 10",
    });
    expect(matches.map((m) => [m.written, m.actual])).toEqual([
      ["amount", ["Amount"]],
      ["status", ["STATUS"]],
    ]);
  });

  it("guesses nothing when two columns match: the name stays missing and the match is ambiguous", () => {
    const schema = { default: { "db.t": { Amount: "Float64", AMOUNT: "Float64", status: "String" } } };
    const { tests, matches } = resolveColumnCase([test({})], schema);
    expect(tests[0]!.columns).toEqual([{ table: "db.t", column: "amount" }]);
    expect(matches).toEqual([{ datasource: "default", table: "db.t", written: "amount", actual: ["AMOUNT", "Amount"], metrics: ["m"] }]);
  });

  it("leaves names the warehouse spells alike untouched (the same objects)", () => {
    const original = test({});
    const { tests, matches } = resolveColumnCase([original], { default: { "db.t": { amount: "Float64", status: "String" } } });
    expect(tests[0]).toBe(original);
    expect(matches).toEqual([]);
  });
});

describe("series probes", () => {
  it("read a timestamp in the warehouse's spelling, and the match names the table", () => {
    const timestamp = test({
      rule: "volume_anomaly",
      columns: [{ table: "db.t", column: "PAID_AT" }],
      filter_columns: [],
      filter: null,
      probe: {
        type: "volume_series",
        timestamp: "PAID_AT",
        settings: {
          grain: "day",
          training_buckets: 84,
          detection_buckets: 2,
          sensitivity: 2.85,
          seasonality: "auto",
          holidays: null,
          exclude: [],
        },
      },
    });
    const { tests, matches } = resolveColumnCase([timestamp], { default: { "db.t": { paid_at: "DateTime" } } });
    const probe = tests[0]!.probe as { timestamp: string };
    expect(probe.timestamp).toBe("paid_at");
    expect(matches.map((m) => [m.datasource, m.table, m.written, m.actual])).toEqual([["default", "db.t", "PAID_AT", ["paid_at"]]]);
  });
});
