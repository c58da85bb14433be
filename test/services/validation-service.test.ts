import { describe, expect, it } from "vitest";
import { testListing, testRunReport } from "../../src/services/validation-service.js";
import { result, snapshot } from "./fixtures.js";

describe("validation service", () => {
  it("lists inferred tests as pending, with the API fields only", () => {
    const listing = testListing(snapshot());
    expect(listing.count).toBe(1);
    expect(listing.tests[0]).toEqual({
      metric: "gross_revenue",
      rule: "measure_not_null",
      name: "gross_revenue: amount is not null",
      check: "amount IS NOT NULL",
      severity: "HIGH",
      confidence: "high",
      status: "pending",
    });
  });

  it("reports a finished scan's results with their summary and ran_at", () => {
    const finished = new Date("2024-05-01T10:00:05Z");
    const scan = {
      scan_id: "s",
      trigger: "api_run" as const,
      status: "succeeded" as const,
      started_at: new Date(0),
      finished_at: finished,
      error: null,
      summary: null,
      catalog_version: null,
    };
    const run = testRunReport(scan, [
      result("gross_revenue", "passing"),
      result("gross_revenue", "failing"),
      result("gross_revenue", "warning"),
    ]);
    expect(run.summary).toEqual({ total: 3, passing: 1, failing: 1, warning: 1 });
    expect(run.ran_at).toBe("2024-05-01T10:00:05.000Z");
    expect(run.tests[1]).toMatchObject({ status: "failing", rows_affected: 12, rows_total: 10_000 });
    expect(testRunReport({ ...scan, finished_at: null }, []).ran_at).toBe("1970-01-01T00:00:00.000Z");
  });
});
