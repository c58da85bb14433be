import { describe, expect, it } from "vitest";
import { countTests, deriveStatuses, summarize } from "../../src/derive/derive.js";
import type { TestResult, TestStatus } from "../../src/evaluate/types.js";
import type { Severity } from "../../src/infer/types.js";

function result(metric: string, status: TestStatus, severity: Severity = "HIGH"): TestResult {
  return {
    metric,
    rule: "r",
    name: "r",
    severity,
    confidence: "high",
    status,
    rows_affected: 0,
    rows_total: 0,
    message: "",
    sample_sql: "",
    check: "",
    outcome: "measured",
  };
}

describe("deriveStatuses", () => {
  it("applies the DESIGN.md rules", () => {
    const statuses = deriveStatuses(
      ["ok", "high_fail", "warn", "medium_fail", "low_fail", "never"],
      [
        result("ok", "passing"),
        result("ok", "passing", "MEDIUM"),
        result("high_fail", "passing"),
        result("high_fail", "failing", "HIGH"),
        result("high_fail", "warning"),
        result("warn", "warning", "HIGH"),
        result("medium_fail", "failing", "MEDIUM"),
        result("low_fail", "failing", "LOW"),
        result("not_in_catalogue", "failing"),
      ],
    );
    expect(statuses.map((s) => [s.metric_name, s.status, s.safe_to_use])).toEqual([
      ["ok", "healthy", true],
      ["high_fail", "unreliable", false],
      ["warn", "degraded", true],
      ["medium_fail", "degraded", true],
      ["low_fail", "degraded", true],
      ["never", "unknown", false],
    ]);
    expect(statuses[1]!.tests).toEqual({ total: 3, passing: 1, failing: 1, warning: 1 });
    expect(statuses[5]!.tests).toEqual({ total: 0, passing: 0, failing: 0, warning: 0 });
  });
});

describe("a metric nothing vouches for", () => {
  const notEvaluated = (metric: string, rule = "measure_not_null"): TestResult => ({
    ...result(metric, "warning"),
    rule,
    outcome: "not_evaluated",
    message: "not evaluated: query q1 failed: timeout",
  });
  it("is unknown and unsafe when none of its data tests could be evaluated, even with its schema checks passing", () => {
    const statuses = deriveStatuses(
      ["none", "schema_only", "some", "high_fail", "only_not_applicable"],
      [
        notEvaluated("none"),
        notEvaluated("none", "table_not_empty"),
        { ...result("schema_only", "passing"), rule: "columns_exist" },
        notEvaluated("schema_only"),
        notEvaluated("some"),
        result("some", "passing"),
        notEvaluated("high_fail"),
        { ...result("high_fail", "failing"), rule: "columns_exist" },
        notEvaluated("only_not_applicable"),
        { ...result("only_not_applicable", "passing"), outcome: "not_applicable", message: "not applicable: id is UInt32, never NULL" },
      ],
    );
    expect(statuses.map((s) => [s.metric_name, s.status, s.safe_to_use])).toEqual([
      ["none", "unknown", false],
      ["schema_only", "unknown", false],
      ["some", "degraded", true],
      // a failing HIGH check still says more than "unknown"
      ["high_fail", "unreliable", false],
      ["only_not_applicable", "unknown", false],
    ]);
  });
});

describe("a check that failed to compute", () => {
  it("makes its metric unreliable whatever the check's severity; the message is not read", () => {
    const failed = (metric: string, severity: Severity): TestResult => ({
      ...result(metric, "failing", severity),
      outcome: "failed",
      message: "",
    });
    const statuses = deriveStatuses(
      ["medium", "low", "warned"],
      [
        result("medium", "passing"),
        failed("medium", "MEDIUM"),
        failed("low", "LOW"),
        // the same words in a measured result's message decide nothing
        { ...result("warned", "warning", "MEDIUM"), message: "not evaluated: failed to compute" },
        result("warned", "passing"),
      ],
    );
    expect(statuses.map((s) => [s.metric_name, s.status, s.safe_to_use])).toEqual([
      ["medium", "unreliable", false],
      ["low", "unreliable", false],
      ["warned", "degraded", true],
    ]);
  });
});

describe("summarize and countTests", () => {
  it("counts statuses including unknown", () => {
    const statuses = deriveStatuses(["a", "b", "c", "d"], [result("a", "passing"), result("b", "failing"), result("c", "warning")]);
    expect(summarize(statuses)).toEqual({ total: 4, healthy: 1, degraded: 1, unreliable: 1, unknown: 1 });
    expect(summarize([])).toEqual({ total: 0, healthy: 0, degraded: 0, unreliable: 0, unknown: 0 });
  });
  it("counts test results by status", () => {
    expect(countTests([result("a", "passing"), result("a", "failing"), result("b", "warning"), result("b", "warning")])).toEqual({
      total: 4,
      passing: 1,
      failing: 1,
      warning: 2,
    });
  });
});
