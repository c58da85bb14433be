// End-to-end correctness of the inferred tests: the real loader, planner, warehouse and
// evaluation over a fixture with defects planted at known rows, on both engines.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestResult } from "../../src/evaluate/types.js";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { compilerStatusView } from "../../src/services/compiler-service.js";
import { RULE_IDS } from "../../src/catalog/rule-ids.js";
import { uniqueDatabase, type WarehouseHandle, engineCases } from "../helpers/warehouses.js";
import { EXPECTED_STATUS, expectedResults, type Expected } from "./expected.js";
import { loadFixtureCatalog, METRIC_NAMES } from "./fixture-catalog.js";
import { dropFixture, openFixture, runScan, type ScanRun } from "./run-scan.js";

const NOT_ROW_RULES = new Set(["table_not_empty", "columns_exist", "filter_columns_exist", "freshness"]);

function matches(result: TestResult, expected: Expected): boolean {
  if (result.rule !== expected.rule) return false;
  if (expected.on === null) return true;
  return result.check === expected.on || result.check.split(/[^A-Za-z0-9_.]+/).includes(expected.on);
}

/** "5 of 200 rows (2.50%)": the count and the share, as evaluate words them. */
function countText(affected: number, total: number): string {
  const pct = total > 0 && affected > 0 ? ((affected / total) * 100).toFixed(2) : "0.00";
  return `${affected.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} rows (${pct}%)`;
}

describe.each(engineCases)("$name: inferred tests on the correctness fixture", (engine) => {
  const db = uniqueDatabase("mr_corr");
  let handle: WarehouseHandle | undefined;
  let run: ScanRun;
  let snapshot: CatalogSnapshot;
  const resultsOf = (metric: string) => run.results.filter((r) => r.metric === metric);

  beforeAll(async () => {
    handle = await openFixture(engine, db);
    snapshot = await loadFixtureCatalog(db);
    expect(snapshot.errors).toEqual([]);
    expect(snapshot.metrics.map((m) => m.name)).toEqual([...METRIC_NAMES]);
    run = await runScan(snapshot, handle.warehouse);
  });
  afterAll(() => dropFixture(handle, db));

  it.each(METRIC_NAMES.map((name) => [name]))("%s: exact rows_affected, rows_total, status and message", (metric) => {
    const results = resultsOf(metric);
    const expected = expectedResults(db)[metric]!;
    expect(results.map((r) => `${r.rule}: ${r.check}`)).toHaveLength(expected.length);
    for (const want of expected) {
      const found = results.filter((r) => matches(r, want));
      expect(found, `${metric} ${want.rule} ${want.on}`).toHaveLength(1);
      const got = found[0]!;
      const label = `${metric} ${got.rule} (${got.check}): ${got.message}`;
      expect({ status: got.status, rows_affected: got.rows_affected, rows_total: got.rows_total }, label).toEqual({
        status: want.status,
        rows_affected: want.affected,
        rows_total: want.total,
      });
      if (want.message === null) {
        expect(NOT_ROW_RULES.has(got.rule), label).toBe(false);
        expect(got.message, label).toContain(countText(want.affected, want.total));
      } else if (typeof want.message === "string") expect(got.message, label).toBe(want.message);
      else expect(got.message, label).toMatch(want.message);
    }
  });

  it("derives each metric's reliability status", () => {
    expect(Object.fromEntries(run.statuses.map((s) => [s.metric_name, s.status]))).toEqual(EXPECTED_STATUS);
    for (const status of run.statuses) {
      expect(status.safe_to_use).toBe(status.status === "healthy" || status.status === "degraded");
      expect(status.tests.total).toBe(resultsOf(status.metric_name).length);
    }
  });

  it("covers every rule: all pass on the clean metric, each fails somewhere on the defective ones", () => {
    const clean = resultsOf("clean_revenue");
    // clean_revenue has no filter; the filtered completed_revenue shows those rules passing. It
    // declares a freshness, so the learnt cadence (freshness_anomaly) does not second-guess it.
    expect(new Set(clean.map((r) => r.rule))).toEqual(
      new Set(RULE_IDS.filter((r) => r !== "filter_columns_exist" && r !== "filter_column_not_null" && r !== "freshness_anomaly")),
    );
    expect(clean.filter((r) => r.status !== "passing")).toEqual([]);
    expect(resultsOf("completed_revenue").find((r) => r.rule === "filter_columns_exist")!.status).toBe("passing");
    // The anomaly rules need weeks of history: test/correctness/anomaly-rules.test.ts has them fail.
    const failing = new Set(run.results.filter((r) => r.status === "failing").map((r) => r.rule));
    expect(failing).toEqual(new Set(RULE_IDS.filter((r) => !r.endsWith("_anomaly"))));
  });

  it("counts only the rows the filter keeps", () => {
    const unfiltered = resultsOf("order_revenue");
    const filtered = resultsOf("completed_revenue");
    const nulls = (results: TestResult[]) => results.find((r) => r.rule === "measure_not_null")!;
    expect([nulls(unfiltered).rows_affected, nulls(unfiltered).rows_total]).toEqual([5, 200]);
    expect([nulls(filtered).rows_affected, nulls(filtered).rows_total]).toEqual([3, 160]);
    expect(nulls(filtered).sample_sql).toContain("WHERE (status = 'completed') AND (`amount` IS NULL)");
  });

  it("a per-metric tolerance turns the same shared check into a warning, or keeps it failing", () => {
    const status = (metric: string, rule: string) => resultsOf(metric).find((r) => r.rule === rule)!.status;
    expect(status("completed_revenue", "measure_not_null")).toBe("failing"); // HIGH default: 0
    expect(status("completed_avg_amount", "measure_not_null")).toBe("warning"); // 3/160 <= 0.01875
    expect(status("strict_avg_amount", "measure_not_null")).toBe("failing"); // 3/160 > 0.018
    expect(status("completed_revenue", "measure_non_negative")).toBe("failing"); // MEDIUM default: 1%
    expect(status("completed_avg_amount", "measure_non_negative")).toBe("warning"); // 0.05
  });

  it("a derived metric reports its inputs' tests under its own name, with the worst status", () => {
    const derived = resultsOf("avg_and_revenue");
    const inputs = [...resultsOf("completed_avg_amount"), ...resultsOf("completed_revenue")];
    for (const result of derived) {
      const same = inputs.filter((r) => r.check === result.check && r.rule === result.rule);
      expect(same.length).toBeGreaterThan(0);
      expect(same.every((r) => r.rows_affected === result.rows_affected && r.rows_total === result.rows_total)).toBe(true);
      const worst = same.some((r) => r.status === "failing") ? "failing" : same.some((r) => r.status === "warning") ? "warning" : "passing";
      expect(result.status, result.name).toBe(worst);
      expect(result.name).toMatch(/^(completed_avg_amount|completed_revenue): /);
    }
    expect(derived.find((r) => r.rule === "measure_not_null")!.name).toBe("completed_revenue: revenue (amount) is never NULL");
  });

  it("a missing column fails columns_exist and turns the tests that need it into warnings, not errors", () => {
    const drifted = resultsOf("drifted");
    expect(drifted.find((r) => r.rule === "columns_exist")).toMatchObject({
      status: "failing",
      message: `1 of 2 columns missing: ${db}.orders.discount`,
    });
    for (const result of drifted.filter((r) => r.check.includes("discount") && r.rule !== "columns_exist")) {
      expect(result.status).toBe("warning");
      expect(result.message).toContain("not evaluated: column missing");
      expect(result.message).not.toMatch(/ClickHouse error|DB::Exception/);
    }
    // The other tests on the same table and filter still ran in the shared query.
    expect(drifted.find((r) => r.rule === "dimension_not_null")!.status).toBe("failing");
  });

  it("a test whose filter throws on the data fails with ClickHouse's error; one that cannot run is a warning that says why", () => {
    const [throwing] = resultsOf("throwing_filter").filter((r) => r.rule === "table_not_empty");
    expect(throwing).toMatchObject({ status: "failing", outcome: "failed" });
    expect(throwing!.message).toContain("throws on today's data (ClickHouse error 395: ");
    expect(throwing!.message).not.toContain(run.scanId); // no query id: the message holds while the data does
    // The String "timestamp" is kept out of the events query, so stale_events is still judged.
    expect(resultsOf("stale_events").find((r) => r.rule === "freshness")!.status).toBe("failing");
  });

  describe("no false alarms by construction", () => {
    it("a joined dimension with NULLs only on rows the join never reaches passes", async () => {
      const segment = (metric: string) => resultsOf(metric).find((r) => r.rule === "dimension_not_null" && r.check.startsWith("segment"))!;
      // Customers 10 and 20 have a NULL segment; only cancelled orders point at them.
      expect(segment("order_revenue")).toMatchObject({ status: "failing", rows_affected: 2 });
      expect(segment("completed_revenue")).toMatchObject({ status: "passing", rows_affected: 0, rows_total: 43 });
      expect(await handle!.warehouse.query(segment("completed_revenue").sample_sql, { queryId: "fa-segment" })).toEqual([]);
    });

    it("a selective filter on a freshly loaded table passes freshness (one unfiltered check per table)", async () => {
      const [row] = (await handle!.warehouse.query(
        `SELECT toUInt64(now()) - toUInt64(max(sold_at)) AS filtered_age FROM ${db}.clean_sales WHERE id > 90`,
        { queryId: "fa-fresh" },
      )) as { filtered_age: string | number }[];
      expect(Number(row!.filtered_age)).toBeGreaterThan(10 * 60); // stale, were it judged under the filter
      const fresh = resultsOf("late_sales").find((r) => r.rule === "freshness")!;
      expect(fresh.status).toBe("passing");
      // clean_revenue's freshness (1h) and late_sales' (10m) read the same unfiltered max.
      expect(fresh.sample_sql).toBe(`SELECT max(\`sold_at\`) AS newest, now() AS checked_at FROM \`${db}\`.\`clean_sales\``);
    });

    it("a filter ClickHouse cannot parse makes its metric unknown and unsafe, and GET /v1/compiler/ir says why", () => {
      expect(run.statuses.find((s) => s.metric_name === "template_filter")).toMatchObject({ status: "unknown", safe_to_use: false });
      const errors = compilerStatusView(snapshot, run.findings).errors.filter((e) => e.metric === "template_filter");
      expect(errors).toEqual([
        {
          metric: "template_filter",
          file: expect.stringMatching(/\/3-drift\.yaml$/),
          message: expect.stringMatching(
            /metric "template_filter": filter "\{\{ Dimension\('order__status'\) \}\} = 'completed'" cannot be parsed by ClickHouse: .*Syntax error/,
          ),
        },
      ]);
      // Its SQL never reached a scan query.
      expect(run.sent.some((s) => !/-sql\d+$/.test(s.options.queryId) && s.sql.includes("Dimension("))).toBe(false);
    });

    it("a metric whose own filter throws on the data is unreliable, never degraded-and-safe", () => {
      expect(resultsOf("throwing_filter").find((r) => r.rule === "columns_exist")!.status).toBe("passing");
      expect(run.statuses.find((s) => s.metric_name === "throwing_filter")).toMatchObject({ status: "unreliable", safe_to_use: false });
    });
  });
});
