// Exact expected results of one scan over the fixture (see fixture-warehouse.ts for where
// each count comes from). One entry per test result of each metric.
import type { TestStatus } from "../../src/evaluate/types.js";
import type { ReliabilityStatus } from "../../src/derive/types.js";
import { CLEAN_PRODUCTS, CLEAN_SALES, CUSTOMERS, EVENTS, ORDERS, PAYMENTS, PAYMENTS_FILTERED, defectIds } from "./fixture-warehouse.js";

/**
 * customers rows that completed orders reach: ids whose last digit is 2..9 (40 ids, as
 * customer_id = id % 50 + 1 and completed ids end in 1..8), plus the extra rows of 7 and 8.
 * The NULL segments (customers 10 and 20) are not among them.
 */
export const CUSTOMERS_REACHED_COMPLETED = 43;
/** orders rows card_payments reaches: order ids 1..30 but 22 (9999), 27 (NULL) and the filtered-out 25, 26 */
export const ORDERS_REACHED_PAYMENTS = 26;

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

const row = (rule: string, on: string, status: TestStatus, affected: number, total: number): Expected => ({
  rule,
  on,
  status,
  affected,
  total,
  message: null,
});
const pass = (rule: string, on: string, total: number): Expected => row(rule, on, "passing", 0, total);
const fail = (rule: string, on: string, affected: number, total: number): Expected => row(rule, on, "failing", affected, total);
const other = (
  rule: string,
  on: string | null,
  status: TestStatus,
  affected: number,
  total: number,
  message: string | RegExp,
): Expected => ({ rule, on, status, affected, total, message });
const columns = (table: string, list: string[], missing: string[] = []): Expected =>
  other(
    "columns_exist",
    `${table} has columns ${list.length > 0 ? list.join(", ") : "(table only)"}`,
    missing.length > 0 ? "failing" : "passing",
    missing.length,
    Math.max(list.length, 1),
    `${missing.length} of ${Math.max(list.length, 1)} ${list.length > 0 ? "columns" : "tables"} missing${missing.length > 0 ? `: ${missing.join(", ")}` : ""}`,
  );

/**
 * Anomaly checks on the fixture's tables, whose rows span minutes to days: too little history to
 * judge (test/correctness/anomaly-rules.test.ts plants anomalies in weeks of history).
 */
const young = (rule: string, on: string): Expected =>
  other(rule, on, "passing", 0, 0, /^not applicable: not enough history yet \(\d+ complete days? with a value in the 86-day window\)$/);
const noRows = (rule: string, on: string): Expected =>
  other(rule, on, "passing", 0, 0, "not applicable: no rows in the history window (by day), nothing to compare");

/** filter_columns_exist of the metrics filtered on `status = 'completed'` */
const filterColumns = (db: string, missing: string[] = []): Expected =>
  other(
    "filter_columns_exist",
    `${db}.orders has columns ${missing.length > 0 ? missing.join(", ") : "status"}`,
    missing.length > 0 ? "failing" : "passing",
    missing.length,
    1,
    `${missing.length} of 1 columns missing${missing.length > 0 ? `: ${missing.map((c) => `${db}.orders.${c}`).join(", ")}` : ""}`,
  );

/** order_revenue without the filter, completed_revenue with it: the same shape. */
function orderShape(db: string, filtered: boolean): Expected[] {
  const total = filtered ? 160 : ORDERS;
  const n = (defect: Parameters<typeof defectIds>[0]) => defectIds(defect, filtered).length;
  const where = filtered ? " where status = 'completed'" : "";
  const reached = filtered ? CUSTOMERS_REACHED_COMPLETED : CUSTOMERS;
  return [
    other("table_not_empty", null, "passing", 0, total, `${total} rows in ${db}.orders${where}`),
    columns(`${db}.orders`, ["amount", "channel", "country", "created_at", "customer_id"]),
    columns(`${db}.customers`, ["id", "segment"]),
    ...(filtered
      ? [filterColumns(db), other("filter_column_not_null", "status", "passing", 0, 0, "not applicable: status is String, never NULL")]
      : []),
    fail("measure_not_null", "amount", n("amountNull"), total),
    fail("measure_finite", "amount", n(["amountNaN", "amountInf"]), total),
    fail("measure_non_negative", "amount", n("amountNegative"), total),
    fail("count_key_not_null", "customer_id", n("customerNull"), total),
    fail("dimension_not_null", "country", n(["countryNull", "countryEmpty"]), total),
    row("dimension_not_null", "channel", "warning", n("channelEmpty"), total),
    // Only the customers the metric's orders reach: the NULL segments are unreached by completed orders.
    filtered ? pass("dimension_not_null", "segment", reached) : fail("dimension_not_null", "segment", 2, reached),
    fail("join_key_unique", "id", 3, reached),
    fail("join_referential_integrity", "customer_id", n("customerOrphan"), total),
    fail("foreign_key_not_null", "customer_id", n("customerNull"), total),
    fail("timestamp_not_future", "created_at", n("createdFuture"), total),
    // Freshness reads the whole table, whatever the filter.
    other("freshness", "created_at", "passing", 0, ORDERS, /^newest row is (1d 23h|2d) in the future \(allowed 1h\)$/),
    young("volume_anomaly", "created_at"),
    young("metric_value_anomaly", "amount"),
    young("metric_value_anomaly", "customer_id"),
  ];
}

/** Avg(amount) over completed orders with per-metric tolerances (status per tolerance). */
function avgShape(db: string, statuses: [TestStatus, TestStatus, TestStatus]): Expected[] {
  return [
    other("table_not_empty", null, "passing", 0, 160, `160 rows in ${db}.orders where status = 'completed'`),
    columns(`${db}.orders`, ["amount"]),
    filterColumns(db),
    other("filter_column_not_null", "status", "passing", 0, 0, "not applicable: status is String, never NULL"),
    row("measure_not_null", "amount", statuses[0], 3, 160),
    row("measure_finite", "amount", statuses[1], 2, 160),
    row("measure_non_negative", "amount", statuses[2], 3, 160),
  ];
}

/** The dbt column tests declared on clean_sales (4-dbt/schema.yml), over `reached` rows. */
function cleanDbt(reached: number): Expected[] {
  return [
    pass("dbt_unique", "id", reached),
    pass("dbt_not_null", "id", reached),
    pass("dbt_relationships", "product_id", reached),
    pass("dbt_accepted_values", "region", CLEAN_SALES),
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
      columns(`${db}.clean_sales`, ["id", "price", "product_id", "quantity", "region", "sold_at"]),
      columns(`${db}.clean_products`, ["category", "id"]),
      pass("primary_key_unique", "id", CLEAN_SALES),
      pass("primary_key_not_null", "id", CLEAN_SALES),
      pass("dimension_accepted_values", "region", CLEAN_SALES),
      pass("foreign_key_not_null", "product_id", CLEAN_SALES),
      ...cleanDbt(CLEAN_SALES),
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
      young("volume_anomaly", "sold_at"),
      young("metric_value_anomaly", "price"),
      young("metric_value_anomaly", "quantity"),
      young("metric_value_anomaly", "product_id"),
    ],
    // The filter keeps rows 45+ minutes old; the table was loaded seconds ago: fresh.
    late_sales: [
      other("table_not_empty", null, "passing", 0, 10, `10 rows in ${db}.clean_sales where id > 90`),
      columns(`${db}.clean_sales`, ["sold_at"]),
      other("filter_columns_exist", `${db}.clean_sales has columns id`, "passing", 0, 1, "0 of 1 columns missing"),
      other("filter_column_not_null", "id", "passing", 0, 0, "not applicable: id is UInt32, never NULL"),
      pass("timestamp_not_future", "sold_at", 10),
      other("freshness", "sold_at", "passing", 0, CLEAN_SALES, /^newest row is (\d+s|[1-9]m( \d+s)?) old \(allowed 10m\)$/),
      young("volume_anomaly", "sold_at"),
      ...cleanDbt(10),
    ],
    card_payments: [
      other(
        "table_not_empty",
        null,
        "passing",
        0,
        PAYMENTS_FILTERED,
        `${PAYMENTS_FILTERED} rows in ${db}.payments where method IN ('card', 'cash')`,
      ),
      columns(`${db}.payments`, ["amount", "fee", "method", "order_id", "payment_id"]),
      columns(`${db}.orders`, ["id"]),
      other("filter_columns_exist", `${db}.payments has columns method`, "passing", 0, 1, "0 of 1 columns missing"),
      fail("primary_key_unique", "payment_id", 1, PAYMENTS_FILTERED),
      fail("primary_key_not_null", "payment_id", 1, PAYMENTS_FILTERED),
      fail("measure_not_null", "fee", 1, PAYMENTS_FILTERED),
      pass("measure_finite", "fee", PAYMENTS_FILTERED),
      fail("measure_non_negative", "fee", 1, PAYMENTS_FILTERED),
      pass("dimension_not_null", "method", PAYMENTS_FILTERED),
      // Unfiltered: the filter hides exactly the rows these two find.
      fail("dimension_accepted_values", "method", 1, PAYMENTS),
      fail("filter_column_not_null", "method", 1, PAYMENTS),
      pass("join_key_unique", "id", ORDERS_REACHED_PAYMENTS),
      fail("join_referential_integrity", "order_id", 1, PAYMENTS_FILTERED),
      // The join is inner: a NULL key drops the row from the metric, so HIGH.
      fail("foreign_key_not_null", "order_id", 1, PAYMENTS_FILTERED),
      fail("dbt_unique", "payment_id", 1, PAYMENTS_FILTERED),
      fail("dbt_not_null", "payment_id", 1, PAYMENTS_FILTERED),
      fail("dbt_not_null", "order_id", 1, PAYMENTS_FILTERED),
      fail("dbt_relationships", "order_id", 1, PAYMENTS_FILTERED),
      fail("dbt_accepted_values", "method", 1, PAYMENTS),
    ],
    stale_events: [
      other("table_not_empty", null, "passing", 0, EVENTS, `${EVENTS} rows in ${db}.events`),
      columns(`${db}.events`, ["happened_at", "kind"]),
      pass("dimension_not_null", "kind", EVENTS),
      pass("timestamp_not_future", "happened_at", EVENTS),
      other("freshness", "happened_at", "failing", 1, EVENTS, "newest row is 2d old (allowed 1d)"),
      young("volume_anomaly", "happened_at"),
    ],
    // Shares the events query with stale_events: its unusable timestamp must not spoil that query.
    label_timestamp: [
      other("table_not_empty", null, "passing", 0, EVENTS, `${EVENTS} rows in ${db}.events`),
      columns(`${db}.events`, ["label"]),
      other("timestamp_not_future", "label", "warning", 0, 0, notEvaluated("label is String, not a Date or DateTime")),
      other("freshness", "label", "warning", 0, 0, notEvaluated("label is String, not a Date or DateTime")),
      other("volume_anomaly", "label", "warning", 0, 0, notEvaluated("label is String, not a Date, DateTime or unix time")),
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
      pass("foreign_key_not_null", "customer_id", 0),
      pass("timestamp_not_future", "created_at", 0),
      other("freshness", "created_at", "failing", 1, 0, "no rows, so no freshness (allowed 1d)"),
      noRows("volume_anomaly", "created_at"),
      noRows("metric_value_anomaly", "amount"),
      noRows("metric_value_anomaly", "customer_id"),
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
      other("filter_column_not_null", "no_such_column", "warning", 0, 0, notEvaluated(`column missing: ${db}.orders.no_such_column`)),
    ],
    // Never sent to the warehouse as a scan query: every test says why it cannot run.
    template_filter: [
      other(
        "table_not_empty",
        null,
        "warning",
        0,
        0,
        /^not evaluated: metric "template_filter": filter ".*" cannot be parsed by ClickHouse: .*ClickHouse error 62: Syntax error/,
      ),
      other(
        "columns_exist",
        `${db}.orders has columns (table only)`,
        "warning",
        0,
        0,
        /^not evaluated: metric "template_filter": filter .* cannot be parsed by ClickHouse/,
      ),
    ],
    // The filter throws on the data: its tests are isolated from the orders query (bisection),
    // fail with ClickHouse's error, and count the table's 200 rows (the filter's cannot be).
    throwing_filter: [
      other(
        "table_not_empty",
        null,
        "failing",
        0,
        200,
        /^failed to compute: the filter throwIf\(1\) = 0 throws on today's data \(ClickHouse error 395: /,
      ),
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
  late_sales: "healthy",
  card_payments: "unreliable",
  stale_events: "unreliable",
  label_timestamp: "degraded",
  empty_metric: "unreliable",
  drifted: "unreliable",
  gone_metric: "unreliable",
  bad_filter: "unreliable",
  template_filter: "unknown",
  // Its own filter cannot be computed on today's data.
  throwing_filter: "unreliable",
};
