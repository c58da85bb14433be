import { describe, expect, it } from "vitest";
import { judgeAll, observeChecks } from "../../src/evaluate/evaluate.js";
import { judgeTest, statusOf } from "../../src/evaluate/judge.js";
import type { CheckObservation } from "../../src/evaluate/types.js";
import { planScan } from "../../src/plan/plan-scan.js";
import { SCHEMA, col, makeTest } from "../plan/make-test.js";

const amountNotNull = makeTest({
  rule: "measure_not_null",
  columns: [col("amount")],
  probe: { type: "rows_where", violation: "isNull(`amount`)" },
});
const measured = (rows_affected: number, rows_total: number): CheckObservation => ({
  outcome: "measured",
  rows_affected,
  rows_total,
  message: "m",
});

describe("observeChecks", () => {
  it("observes a check shared by two metrics once, and each metric judges it with its own tolerance", () => {
    const strict = { ...amountNotNull, metric: "a" };
    const lenient = { ...amountNotNull, metric: "b", severity: "MEDIUM" as const, tolerance: 0.05 };
    const plan = planScan([strict, lenient], SCHEMA, { maxQuerySize: 262_144 });
    const observations = observeChecks(
      [strict, lenient],
      plan,
      plan.queries.map((q) => ({ query_id: q.id, row: { total: "100", c1: "3" }, error: null })),
      SCHEMA,
    );
    expect([...observations.keys()]).toEqual([amountNotNull.key]);
    expect(observations.get(amountNotNull.key)).toMatchObject({ outcome: "measured", rows_affected: 3, rows_total: 100 });
    expect(judgeAll([strict, lenient], observations).map((r) => [r.metric, r.status])).toEqual([
      ["a", "failing"],
      ["b", "warning"],
    ]);
  });

  it("keeps a query ClickHouse rejected as not_evaluated, a warning whatever the severity", () => {
    const plan = planScan([amountNotNull], SCHEMA, { maxQuerySize: 262_144 });
    const observations = observeChecks(
      [amountNotNull],
      plan,
      [{ query_id: plan.queries[0]!.id, row: null, error: "Unknown identifier" }],
      SCHEMA,
    );
    const observation = observations.get(amountNotNull.key)!;
    expect(observation).toMatchObject({ outcome: "not_evaluated", message: "not evaluated: Unknown identifier" });
    expect(statusOf(amountNotNull, observation)).toBe("warning");
  });
});

describe("judgeTest", () => {
  it("applies the tolerance to the share of rows for row checks", () => {
    const medium = { ...amountNotNull, severity: "MEDIUM" as const, tolerance: 0.01 };
    expect(statusOf(medium, measured(3, 300))).toBe("warning");
    expect(statusOf(medium, measured(4, 300))).toBe("failing");
    expect(statusOf(medium, measured(0, 300))).toBe("passing");
  });

  it("treats emptiness and freshness as one fact about the table, whatever rows_total says", () => {
    const fresh = makeTest({
      rule: "freshness",
      severity: "MEDIUM",
      tolerance: 0.01,
      probe: { type: "staleness", column: "`created_at`", maxSeconds: 60 },
    });
    expect(statusOf(fresh, measured(1, 1_000_000))).toBe("failing");
    const notEmpty = makeTest({ rule: "table_not_empty", probe: { type: "not_empty" } });
    expect(statusOf(notEmpty, measured(1, 0))).toBe("failing");
  });

  it("fails a check whose SQL failed to compute, whatever its severity and tolerance, and carries the outcome", () => {
    const failed: CheckObservation = { outcome: "failed", rows_affected: 20, rows_total: 100, message: "failed to compute: x" };
    const low = { ...amountNotNull, severity: "LOW" as const, tolerance: 1 };
    expect(statusOf(low, failed)).toBe("failing");
    expect(judgeTest(low, failed)).toMatchObject({ status: "failing", outcome: "failed", rows_affected: 20, rows_total: 100 });
    expect(judgeTest(amountNotNull, measured(0, 1)).outcome).toBe("measured");
  });

  it("passes what cannot apply and copies the observation's adapted sample query", () => {
    const result = judgeTest(amountNotNull, {
      outcome: "not_applicable",
      rows_affected: 0,
      rows_total: 0,
      message: "not applicable: x",
      sample_sql: "SELECT 1",
    });
    expect(result).toMatchObject({ status: "passing", sample_sql: "SELECT 1", metric: "gross_revenue", check: amountNotNull.check });
    expect(judgeTest(amountNotNull, measured(0, 1)).sample_sql).toBe(amountNotNull.sample_sql);
  });
});
