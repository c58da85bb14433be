import { describe, expect, it } from "vitest";
import { createIntern } from "../../src/intern.js";
import { toObservation, toStatusPeriod, toStoredStatus } from "../../src/store/mapping.js";

// Sharing strings is not observable from JavaScript (strings compare by value); what is tested is
// that reading through an intern changes no value. Its effect on the heap is measured by hand with
// a heap snapshot (docs/benchmarks.md, seventh session); the intern itself: test/intern.test.ts.
describe("row mapping through an intern", () => {
  const row = { key: "k", outcome: "measured", rows_affected: 3n, rows_total: "10", message: "3 rows", sample_sql: null };

  it("maps an observation row to the same value with and without one", () => {
    const intern = createIntern();
    expect(toObservation(row, intern)).toEqual(toObservation(row));
    expect(toObservation({ ...row, key: "other", sample_sql: "SELECT 1" }, intern)).toEqual({
      outcome: "measured",
      rows_affected: 3,
      rows_total: 10,
      message: "3 rows",
      sample_sql: "SELECT 1",
    });
  });

  it("maps status rows and periods to the same values with and without one", () => {
    const intern = createIntern();
    const at = new Date("2026-11-28T00:00:00Z");
    const status = {
      metric: "orders",
      status: "degraded",
      safeToUse: true,
      testsTotal: 4,
      testsPassing: 3,
      testsFailing: 0,
      testsWarning: 1,
      checkedAt: at,
      since: at,
      scanId: "6c8e2da2-242d-488c-9a02-f65253836eb2",
    };
    expect(toStoredStatus(status, intern)).toEqual(toStoredStatus(status));
    expect(toStoredStatus({ ...status, metric: "revenue" }, intern)).toMatchObject({
      metric_name: "revenue",
      scan_id: status.scanId,
      status: "degraded",
    });
    expect(toStatusPeriod({ status: "healthy", from: at, to: null }, intern)).toEqual({ status: "healthy", from: at, to: null });
  });
});
