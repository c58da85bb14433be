// dbt Labs' reference MetricFlow project, read as it is (METRICS_DIR at its root), scanned on
// both engines: on clean tables nothing fails or warns (no false alarms on a real semantic
// layer); on tables with planted defects every rule reports exactly the planted rows.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestResult } from "../../src/evaluate/types.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import { uniqueDatabase, type WarehouseHandle, engineCases } from "../helpers/warehouses.js";
import { metricflowStatements } from "./metricflow-warehouse.js";
import { runScan, type ScanRun } from "./run-scan.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/metricflow");

/** [rule, table, filter, check, status, rows_affected, rows_total], one per distinct check that is not passing. */
type Finding = [string, string, string, string, string, number, number];

function findings(snapshot: CatalogSnapshot, results: TestResult[], db: string): Finding[] {
  const byKey = new Map<string, Finding>();
  // executeScan keeps snapshot.tests order: result i is test i.
  results.forEach((result, i) => {
    const test = snapshot.tests[i]!;
    expect(test.metric).toBe(result.metric);
    if (result.status === "passing") return;
    byKey.set(test.key, [
      result.rule,
      test.table.replace(`${db}.`, ""),
      test.filter ?? "",
      result.check,
      result.status,
      result.rows_affected,
      result.rows_total,
    ]);
  });
  return [...byKey.values()].sort((a, b) => (a.join("|") < b.join("|") ? -1 : 1));
}

const NOT_NULL_LISTING = "listing_id IS NOT NULL";

/** Every planted defect, counted; nothing else. */
function expected(db: string): Finding[] {
  const list: Finding[] = [
    ["columns_exist", "fct_views", "", `${db}.fct_views has columns ds, ds_partitioned, user_id`, "failing", 1, 3],
    ["dimension_not_null", "fct_views", "", "ds_partitioned IS NOT NULL AND ds_partitioned != ''", "warning", 0, 0],
    // schema drift: the filter `listing_id IS NOT NULL` reads a dropped column
    ["filter_columns_exist", "fct_bookings", "", `${db}.fct_bookings has columns listing_id`, "failing", 1, 1],
    ["count_key_not_null", "fct_bookings", "", "referrer_id IS NOT NULL", "failing", 2, 40],
    ["dimension_not_null", "fct_accounts", "", "account_type IS NOT NULL AND account_type != ''", "failing", 1, 20],
    ["dimension_not_null", "fct_bookings", "", "is_instant IS NOT NULL AND is_instant != ''", "failing", 1, 40],
    ["filter_column_not_null", "fct_bookings", "", "is_instant IS NOT NULL", "failing", 1, 40],
    ["measure_finite", "fct_bookings", "", "NOT isNaN(booking_value) AND NOT isInfinite(booking_value)", "failing", 1, 40],
    ["measure_finite", "fct_bookings", "is_instant", "NOT isNaN(booking_value) AND NOT isInfinite(booking_value)", "failing", 1, 20],
    ["measure_non_negative", "fct_bookings", "", "booking_value >= 0", "failing", 1, 40],
    ["measure_non_negative", "fct_revenue", "", "revenue >= 0", "failing", 1, 30],
    ["measure_not_null", "fct_bookings", "", "booking_value IS NOT NULL", "failing", 2, 40],
    ["measure_not_null", "fct_bookings", "is_instant", "booking_value IS NOT NULL", "failing", 1, 20],
    // instant_bookings is sum_boolean over is_instant: the NULL row is silently not summed.
    ["measure_not_null", "fct_bookings", "", "is_instant IS NOT NULL", "failing", 1, 40],
    ["primary_key_unique", "dim_listings_latest", "", "listing_id is unique in " + `${db}.dim_listings_latest`, "failing", 1, 11],
    ["primary_key_unique", "dim_listings_latest", "is_lux", "listing_id is unique in " + `${db}.dim_listings_latest`, "failing", 1, 6],
    ["table_not_empty", "fct_id_verifications", "", "count() > 0", "failing", 1, 0],
    // An empty table is table_not_empty's; freshness_anomaly has seen no load yet (it learns).
    ["timestamp_not_future", "fct_revenue", "", "created_at <= now() + 300", "failing", 1, 30],
  ];
  // Every test under the dropped column's filter could not run, and says why.
  const SERIES = "per day, 84 training + 2 detection buckets, sensitivity 2.85, seasonality auto";
  const underMissingFilter: [string, string][] = [
    ["table_not_empty", "count() > 0"],
    ["measure_not_null", "booking_value IS NOT NULL"],
    ["measure_finite", "NOT isNaN(booking_value) AND NOT isInfinite(booking_value)"],
    ["measure_non_negative", "booking_value >= 0"],
    ["dimension_not_null", "is_instant IS NOT NULL AND is_instant != ''"],
    ["dimension_not_null", "ds IS NOT NULL AND ds != ''"],
    ["dimension_not_null", "ds_partitioned IS NOT NULL AND ds_partitioned != ''"],
    ["dimension_not_null", "booking_paid_at IS NOT NULL AND booking_paid_at != ''"],
    ["timestamp_not_future", "ds <= now() + 300"],
    ["volume_anomaly", `count() by ds ${SERIES}`],
    ["metric_value_anomaly", `Sum(booking_value) by ds ${SERIES}`],
  ];
  for (const [rule, check] of underMissingFilter) list.push([rule, "fct_bookings", NOT_NULL_LISTING, check, "warning", 0, 0]);
  // ever_active_listings' Metric() filter reads fct_bookings.listing_id too: the listings query
  // is refused and bisected; that filter's tests fail to compute (over the table's 11 rows, the
  // filter's own cannot be counted), while the other listings filters' tests were judged.
  const everActive = `toString(listing_id) IN (SELECT toString(listing_id) FROM \`${db}\`.\`fct_bookings\` GROUP BY listing_id HAVING sum((1)) > 2)`;
  const listingsChecks: [string, string][] = [
    ["table_not_empty", "count() > 0"],
    ["primary_key_unique", `listing_id is unique in ${db}.dim_listings_latest`],
    ["primary_key_not_null", "listing_id IS NOT NULL"],
    ["dimension_not_null", "created_at IS NOT NULL AND created_at != ''"],
    ["dimension_not_null", "country IS NOT NULL AND country != ''"],
    ["dimension_not_null", "is_lux IS NOT NULL AND is_lux != ''"],
    ["dimension_not_null", "capacity IS NOT NULL AND capacity != ''"],
    ["timestamp_not_future", "created_at <= now() + 300"],
  ];
  for (const [rule, check] of listingsChecks) list.push([rule, "dim_listings_latest", everActive, check, "failing", 0, 11]);
  // Its anomaly series query is refused the same way: an anomaly check it could not read is not evaluated.
  list.push(["volume_anomaly", "dim_listings_latest", everActive, `count() by created_at ${SERIES}`, "warning", 0, 0]);
  return list.sort((a, b) => (a.join("|") < b.join("|") ? -1 : 1));
}

describe.each(engineCases)("$name: the MetricFlow reference project", (engine) => {
  const clean = uniqueDatabase("mr_mf_clean");
  const defective = uniqueDatabase("mr_mf_bad");
  let handle: WarehouseHandle | undefined;
  let cleanSnapshot: CatalogSnapshot;
  let badSnapshot: CatalogSnapshot;
  let cleanRun: ScanRun;
  let badRun: ScanRun;

  beforeAll(async () => {
    handle = await engine.open();
    for (const [db, bad] of [
      [clean, false],
      [defective, true],
    ] as const) {
      await handle.exec(`DROP DATABASE IF EXISTS ${db}`);
      for (const statement of metricflowStatements(db, bad)) await handle.exec(statement);
    }
    cleanSnapshot = await loadCatalogSnapshot(ROOT, new Date(), { metricflowDatabase: clean });
    badSnapshot = await loadCatalogSnapshot(ROOT, new Date(), { metricflowDatabase: defective });
    cleanRun = await runScan(cleanSnapshot, handle.warehouse, { scanId: `mf-clean-${engine.name}` });
    badRun = await runScan(badSnapshot, handle.warehouse, { scanId: `mf-bad-${engine.name}` });
  });
  afterAll(async () => {
    if (!handle) return;
    for (const db of [clean, defective]) await handle.exec(`DROP DATABASE IF EXISTS ${db}`);
    await handle.close();
  });

  it("compiles with the one named unsupported metric, and infers tests for the rest", () => {
    expect(cleanSnapshot.errors.map((e) => e.metric)).toEqual(["active_listings"]);
    expect(cleanSnapshot.tests.length).toBeGreaterThan(400);
  });

  it("clean tables: not one failing or warning test, every metric healthy", () => {
    expect(findings(cleanSnapshot, cleanRun.results, clean)).toEqual([]);
    expect(cleanRun.statuses.filter((s) => s.status !== "healthy")).toEqual([]);
    expect(cleanRun.statuses).toHaveLength(58);
  });

  it("planted defects: every rule reports exactly the planted rows, and nothing else fails", () => {
    expect(findings(badSnapshot, badRun.results, defective)).toEqual(expected(defective));
  });

  it("derives the statuses a data engineer expects", () => {
    const status = Object.fromEntries(badRun.statuses.map((s) => [s.metric_name, s.status]));
    expect(status).toMatchObject({
      identity_verifications: "unreliable", // empty table
      booking_value: "unreliable", // NULL and NaN values
      instant_booking_value: "unreliable",
      booking_value_for_non_null_listing_id: "unreliable", // its filter's column is gone
      bookings: "degraded", // NULL is_instant, NULL referrer: MEDIUM
      referred_bookings: "degraded",
      revenue: "degraded", // a negative and a future-dated row: MEDIUM
      listings: "unreliable", // a duplicated primary key
      lux_listings: "unreliable",
      ever_active_listings: "unreliable", // its filter's subquery reads the dropped column: it cannot be computed
      views: "unreliable", // a dropped dimension column
      booking_fees: "unreliable", // derived from booking_value
      bookings_per_view: "unreliable",
      revenue_mtd: "degraded",
      total_account_balance_first_day: "degraded", // a NULL account_type
    });
  });
});
