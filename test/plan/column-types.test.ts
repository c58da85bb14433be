// Type-aware planning: probes that cannot work on a column's type stay out of the table's
// query (their error would fail every test sharing it), and join keys of different integer
// widths are converted, because ClickHouse 18.16 refuses `UInt32 IN (SELECT UInt64 ...)`.
import { describe, expect, it } from "vitest";
import { orphanViolation } from "../../src/infer/rules/join-referential-integrity.js";
import { baseType, isNumberType, isTimeLikeType, keyConversion } from "../../src/plan/column-types.js";
import { planScan } from "../../src/plan/plan-scan.js";
import type { WarehouseSchema } from "../../src/plan/types.js";
import { col, makeTest } from "./make-test.js";

const BIG = 262_144;
const SCHEMA: WarehouseSchema = {
  default: {
    "shop.orders": {
      customer_id: "Nullable(UInt32)",
      label: "String",
      code: "String",
      created_at: "DateTime",
      day: "Date",
      epoch: "UInt32",
      amount: "Decimal(18, 2)",
    },
    "shop.customers": { id: "UInt64", code: "LowCardinality(String)", signed: "Int64", fixed: "FixedString(2)" },
  },
};

const ri = (left: string, right: string) =>
  makeTest({
    rule: "join_referential_integrity",
    key: `ri-${left}-${right}`,
    columns: [col(left), col(right, "shop.customers")],
    probe: { type: "rows_where", violation: orphanViolation(left, "shop.customers", right) },
  });

describe("column types", () => {
  it("strips Nullable and LowCardinality and classifies types", () => {
    expect(baseType("Nullable(LowCardinality(String))")).toBe("String");
    expect(isNumberType("Nullable(Decimal(18, 2))")).toBe(true);
    expect(isNumberType("String")).toBe(false);
    expect(isTimeLikeType("DateTime('UTC')")).toBe(true);
    expect(isTimeLikeType("Nullable(Date)")).toBe(true);
    expect(isTimeLikeType("UInt32")).toBe(true);
    expect(isTimeLikeType("String")).toBe(false);
  });

  it("picks an exact common form for join keys", () => {
    expect(keyConversion("Nullable(UInt32)", "UInt32")).toEqual({ convert: null });
    expect(keyConversion("LowCardinality(String)", "String")).toEqual({ convert: null });
    expect(keyConversion("UInt32", "UInt64")).toEqual({ convert: "toUInt64" });
    expect(keyConversion("Int16", "Int64")).toEqual({ convert: "toInt64" });
    expect(keyConversion("Int64", "UInt32")).toEqual({ convert: "toString" });
    expect(keyConversion("UInt128", "UInt64")).toEqual({ convert: "toString" });
    expect(keyConversion("FixedString(2)", "String")).toEqual({ convert: "toString" });
    expect(keyConversion("String", "UInt32")).toBeNull();
    expect(keyConversion("Date", "DateTime")).toBeNull();
  });
});

describe("planScan with column types", () => {
  it("converts join keys of different integer types in the probe and the sample query", () => {
    const test = ri("customer_id", "id");
    const plan = planScan([test], SCHEMA, { maxQuerySize: BIG });
    const converted = "isNotNull(`customer_id`) AND toUInt64(`customer_id`) NOT IN (SELECT toUInt64(`id`) FROM `shop`.`customers`)";
    expect(plan.queries[0]!.sql).toContain(`ifNull(countIf(${converted}), 0)`);
    expect(plan.sample_sql[test.key]).toBe(`SELECT * FROM \`shop\`.\`orders\` WHERE (${converted}) LIMIT 10`);
    expect(plan.tests[0]!.probe).toEqual({ type: "rows_where", violation: converted });
  });

  it("leaves keys of the same type alone", () => {
    const test = ri("code", "code");
    const plan = planScan([test], SCHEMA, { maxQuerySize: BIG });
    expect(plan.queries[0]!.sql).toContain("`code` NOT IN (SELECT `code` FROM");
    expect(plan.sample_sql).toEqual({});
  });

  it("reports keys that cannot be compared instead of failing the table's query", () => {
    const test = ri("label", "signed");
    const plan = planScan([test], SCHEMA, { maxQuerySize: BIG });
    expect(plan.queries).toEqual([]);
    expect(plan.skipped).toEqual([
      { test_key: test.key, outcome: "not_evaluated", reason: "label (String) cannot be compared with shop.customers.signed (Int64)" },
    ]);
  });

  it("runs the sign check only on numbers and timestamp rules only on dates, times or numbers", () => {
    const sign = (column: string) =>
      makeTest({
        rule: "measure_non_negative",
        key: `neg-${column}`,
        columns: [col(column)],
        probe: { type: "rows_where", violation: `\`${column}\` < 0` },
      });
    const future = (column: string) =>
      makeTest({
        rule: "timestamp_not_future",
        key: `fut-${column}`,
        columns: [col(column)],
        probe: { type: "rows_where", violation: "1" },
      });
    const fresh = (column: string) =>
      makeTest({
        rule: "freshness",
        key: `fresh-${column}`,
        columns: [col(column)],
        probe: { type: "staleness", column: `\`${column}\``, maxSeconds: 60 },
      });
    const tests = [sign("amount"), sign("label"), future("created_at"), future("day"), future("epoch"), future("label"), fresh("label")];
    const plan = planScan(tests, SCHEMA, { maxQuerySize: BIG });
    expect(plan.skipped).toEqual([
      { test_key: "neg-label", outcome: "not_applicable", reason: "label is String, not a number" },
      { test_key: "fut-label", outcome: "not_evaluated", reason: "label is String, not a Date or DateTime" },
      { test_key: "fresh-label", outcome: "not_evaluated", reason: "label is String, not a Date or DateTime" },
    ]);
    expect(plan.queries[0]!.outputs.filter((o) => o.part !== "total").map((o) => o.test_key)).toEqual([
      "neg-amount",
      "fut-created_at",
      "fut-day",
      "fut-epoch",
    ]);
  });
});
