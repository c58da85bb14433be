// Exact expected results of one scan over the fixture (see fixture-warehouse.ts for where
// each count comes from). One entry per test result of each metric.
import type { TestStatus } from "../../src/evaluate/types.js";
import type { ReliabilityStatus } from "../../src/derive/types.js";
import { CLEAN_PRODUCTS, CLEAN_SALES, CUSTOMERS, EVENTS, ORDERS, defectIds } from "./fixture-warehouse.js";

export interface Expected {
  rule: string;
  /** the column the check is on, the exact check text (columns_exist), or null (table_not_empty) */
  on: string | null;
  status: TestStatus;
  affected: number;
  total: number;
  /** null: a row count message "<affected> of <total> rows (<pct>%) ..." */
  message: string | RegExp | null;
}

const row = (rule: string, on: string, status: TestStatus, affected: number, total: number): Expected => ({ rule, on, status, affected, total, message: null });
const pass = (rule: string, on: string, total: number): Expected => row(rule, on, "passing", 0, total);
const fail = (rule: string, on: string, affected: number, total: number): Expected => row(rule, on, "failing", affected, total);
const other = (rule: string, on: string | null, status: TestStatus, affected: number, total: number, message: string | RegExp): Expected => ({ rule, on, status, affected, total, message });
const columns = (table: string, list: string[], missing: string[] = []): Expected =>
  other("columns_exist", `${table} has columns ${list.length > 0 ? list.join(", ") : "(table only)"}`, missing.length > 0 ? "failing" : "passing", missing.length, Math.max(list.length, 1),
    `${missing.length} of ${Math.max(list.length, 1)} ${list.length > 0 ? "columns" : "tables"} missing${missing.length > 0 ? `: ${missing.join(", ")}` : ""}`);

/** filter_columns_exist of the metrics filtered on `status = 'completed'` */
const filterColumns = (db: string, missing: string[] = []): Expected =>
  other("filter_columns_exist", `${db}.orders has columns ${missing.length > 0 ? missing.join(", ") : "status"}`, missing.length > 0 ? "failing" : "passing", missing.length, 1,
    `${missing.length} of 1 columns missing${missing.length > 0 ? `: ${missing.map((c) => `${db}.orders.${c}`).join(", ")}` : ""}`);

/** order_revenue without the filter, completed_revenue with it: the same shape. */
function orderShape(db: string, filtered: boolean): Expected[] {
  const total = filtered ? 160 : ORDERS;
  const n = (defect: Parameters<typeof defectIds>[0]) => defectIds(defect, filtered).length;
  const where = filtered ? " where status = 'completed'" : "";
  return [
    other("table_not_empty", null, "passing", 0, total, `${total} rows in ${db}.orders${where}`),
    columns(`${db}.orders`, ["amount", "channel", "country", "created_at", "customer_id"]),
    columns(`${db}.customers`, ["id", "segment"]),
    ...(filtered ? [filterColumns(db)] : []),
    fail("measure_not_null", "amount", n("amountNull"), total),
    fail("measure_finite", "amount", n(["amountNaN", "amountInf"]), total),
    fail("measure_non_negative", "amount", n("amountNegative"), total),
    fail("count_key_not_null", "customer_id", n("customerNull"), total),
    fail("dimension_not_null", "country", n(["countryNull", "countryEmpty"]), total),
    row("dimension_not_null", "channel", "warning", n("channelEmpty"), total),
    fail("dimension_not_null", "segment", 2, CUSTOMERS),
    fail("join_key_unique", "id", 3, CUSTOMERS),
    fail("join_referential_integrity", "customer_id", n("customerOrphan"), total),
    fail("timestamp_not_future", "created_at", n("createdFuture"), total),
    other("freshness", "created_at", "passing", 0, total, /^newest row is (1d 23h|2d) in the future \(allowed 1h\)$/),
  ];
}

/** Avg(amount) over completed orders with per-metric tolerances (status per tolerance). */
function avgShape(db: string, statuses: [TestStatus, TestStatus, TestStatus]): Expected[] {
  return [
    other("table_not_empty", null, "passing", 0, 160, `160 rows in ${db}.orders where status = 'completed'`),
    columns(`${db}.orders`, ["amount"]),
    filterColumns(db),
    row("measure_not_null", "amount", statuses[0], 3, 160),
    row("measure_finite", "amount", statuses[1], 2, 160),
    row("measure_non_negative", "amount", statuses[2], 3, 160),
  ];
}

export function expectedResults(db: string): Record<string, Expected[]> {
  const completed = orderShape(db, true);
  const notEvaluated = (what: string) => `not evaluated: ${what}`;
  return {
    order_revenue: orderShape(db, false),
    completed_revenue: completed,
    // 3 of 160 = 1.875% and 2 of 160 = 1.25%: exactly at the tolerance is a warning.
    completed_avg_amount: avgShape(db, ["warning", "warning", "warning"]),
    strict_avg_amount: avgShape(db, ["failing", "failing", "failing"]),
    // Inherits both inputs; a check both share keeps the stricter input's tolerance.
    avg_and_revenue: [...completed, columns(`${db}.orders`, ["amount"])],
    clean_revenue: [
      other("table_not_empty", null, "passing", 0, CLEAN_SALES, `${CLEAN_SALES} rows in ${db}.clean_sales`),
      columns(`${db}.clean_sales`, ["price", "product_id", "quantity", "region", "sold_at"]),
      columns(`${db}.clean_products`, ["category", "id"]),
      pass("measure_not_null", "price", CLEAN_SALES),
      pass("measure_not_null", "quantity", CLEAN_SALES),
      pass("measure_finite", "price", CLEAN_SALES),
      other("measure_finite", "quantity", "passing", 0, 0, "not applicable: quantity is UInt32, not a float"),
      pass("measure_non_negative", "price", CLEAN_SALES),
      pass("measure_non_negative", "quantity", CLEAN_SALES),
      pass("count_key_not_null", "product_id", CLEAN_SALES),
      pass("dimension_not_null", "region", CLEAN_SALES),
      pass("dimension_not_null", "category", CLEAN_PRODUCTS),
      pass("join_key_unique", "id", CLEAN_PRODUCTS),
      pass("join_referential_integrity", "product_id", CLEAN_SALES),
      pass("timestamp_not_future", "sold_at", CLEAN_SALES),
      other("freshness", "sold_at", "passing", 0, CLEAN_SALES, /^newest row is (\d+s|\d+m( \d+s)?) old \(allowed 1h\)$/),
    ],
    stale_events: [
      other("table_not_empty", null, "passing", 0, EVENTS, `${EVENTS} rows in ${db}.events`),
      columns(`${db}.events`, ["happened_at", "kind"]),
      pass("dimension_not_null", "kind", EVENTS),
      pass("timestamp_not_future", "happened_at", EVENTS),
      other("freshness", "happened_at", "failing", 1, EVENTS, "newest row is 2d old (allowed 1d)"),
    ],
    // Shares the events query with stale_events: its unusable timestamp must not spoil that query.
    label_timestamp: [
      other("table_not_empty", null, "passing", 0, EVENTS, `${EVENTS} rows in ${db}.events`),
      columns(`${db}.events`, ["label"]),
      other("timestamp_not_future", "label", "warning", 0, 0, notEvaluated("label is String, not a Date or DateTime")),
      other("freshness", "label", "warning", 0, 0, notEvaluated("label is String, not a Date or DateTime")),
    ],
    empty_metric: [
      other("table_not_empty", null, "failing", 1, 0, `0 rows in ${db}.empty_orders`),
      columns(`${db}.empty_orders`, ["amount", "created_at", "customer_id", "note"]),
      columns(`${db}.empty_refs`, ["id"]),
      pass("measure_not_null", "amount", 0),
      pass("measure_finite", "amount", 0),
      pass("measure_non_negative", "amount", 0),
      pass("count_key_not_null", "customer_id", 0),
      pass("dimension_not_null", "note", 0),
      pass("join_key_unique", "id", 0),
      pass("join_referential_integrity", "customer_id", 0),
      pass("timestamp_not_future", "created_at", 0),
      other("freshness", "created_at", "failing", 1, 0, "no rows, so no freshness (allowed 1d)"),
    ],
    drifted: [
      other("table_not_empty", null, "passing", 0, ORDERS, `${ORDERS} rows in ${db}.orders`),
      columns(`${db}.orders`, ["country", "discount"], [`${db}.orders.discount`]),
      other("measure_not_null", "discount", "warning", 0, 0, notEvaluated(`column missing: ${db}.orders.discount`)),
      other("measure_finite", "discount", "warning", 0, 0, notEvaluated(`column missing: ${db}.orders.discount`)),
      fail("dimension_not_null", "country", 5, ORDERS),
    ],
    gone_metric: [
      other("table_not_empty", null, "warning", 0, 0, notEvaluated(`table missing: ${db}.gone`)),
      columns(`${db}.gone`, [], [`${db}.gone`]),
    ],
    // The filter's missing column is schema drift, reported as such, not as a ClickHouse error.
    bad_filter: [
      other("table_not_empty", null, "warning", 0, 0, notEvaluated(`column missing: ${db}.orders.no_such_column`)),
      columns(`${db}.orders`, []),
      filterColumns(db, ["no_such_column"]),
    ],
    throwing_filter: [
      other("table_not_empty", null, "warning", 0, 0, /^not evaluated: .*ClickHouse error 395/),
      columns(`${db}.orders`, []),
    ],
  };
}

export const EXPECTED_STATUS: Record<string, ReliabilityStatus> = {
  order_revenue: "unreliable",
  completed_revenue: "unreliable",
  completed_avg_amount: "degraded",
  strict_avg_amount: "unreliable",
  avg_and_revenue: "unreliable",
  clean_revenue: "healthy",
  stale_events: "unreliable",
  label_timestamp: "degraded",
  empty_metric: "unreliable",
  drifted: "unreliable",
  gone_metric: "unreliable",
  bad_filter: "unreliable",
  throwing_filter: "degraded",
};
