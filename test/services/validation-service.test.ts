import { describe, expect, it } from "vitest";
import type { ScanService } from "../../src/scan/types.js";
import { createValidationService, testListing } from "../../src/services/validation-service.js";
import { result, snapshot } from "./fixtures.js";

describe("validation service", () => {
  it("lists inferred tests as pending, with the API fields only", () => {
    const listing = testListing(snapshot());
    expect(listing.count).toBe(1);
    expect(listing.tests[0]).toEqual({
      metric: "gross_revenue", rule: "measure_not_null", name: "gross_revenue: amount is not null",
      check: "amount IS NOT NULL", severity: "HIGH", confidence: "high", status: "pending",
    });
  });

  it("runs tests through the scan service and summarises them", async () => {
    const finished = new Date("2024-05-01T10:00:05Z");
    const calls: string[] = [];
    const scanService = {
      run: async (trigger: string) => {
        calls.push(trigger);
        return {
          scan: { scan_id: "s", trigger: "api_run", status: "succeeded", started_at: new Date(0), finished_at: finished, error: null, summary: null },
          results: [result("gross_revenue", "passing"), result("gross_revenue", "failing"), result("gross_revenue", "warning")],
        };
      },
    } as unknown as ScanService;
    const run = await createValidationService({ getSnapshot: () => snapshot(), scanService }).runTests();
    expect(calls).toEqual(["api_run"]);
    expect(run.summary).toEqual({ total: 3, passing: 1, failing: 1, warning: 1 });
    expect(run.ran_at).toBe("2024-05-01T10:00:05.000Z");
    expect(run.tests[1]).toMatchObject({ status: "failing", rows_affected: 12, rows_total: 10_000 });
  });
});
