// What the demo catalogue (demo/metrics) must report on the demo shop dataset, from the tables
// in demo/README.md ("Tables and planted defects", "Metrics and expected status"), plus the
// shape checks every e2e suite applies to API bodies.
import { expect } from "vitest";
import { DEMO_METRICS_DIR } from "../../src/config/config.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";

export type DemoStatus = "healthy" | "degraded" | "unreliable";

/** Every catalogue metric in catalogue order (files sorted by name, metrics in file order). */
export const EXPECTED_STATUS: Record<string, DemoStatus> = {
  active_customers: "degraded",
  deliveries_shipped: "degraded",
  stock_on_hand: "unreliable",
  gross_revenue: "unreliable",
  order_count: "healthy",
  orders_by_segment: "unreliable",
  units_sold_by_category: "unreliable",
  revenue_per_order: "unreliable",
  seller_payouts: "unreliable",
  average_product_price: "healthy",
  refund_amount: "degraded",
  session_count: "healthy",
  page_views: "healthy",
  orders_per_session: "healthy",
  identified_visitors: "degraded",
  sessions_by_checkout_step: "unreliable",
  web_orders: "degraded",
};
export const METRICS = Object.keys(EXPECTED_STATUS);
export const DERIVED = new Set(["revenue_per_order", "orders_per_session"]);
export const EXPECTED_SUMMARY = { total: 17, healthy: 5, degraded: 5, unreliable: 7, unknown: 0 };

/** The two anomalies planted in recent days (demo-dataset.ts): UTC days relative to the seed. */
const DAY_MS = 86_400_000;
export const utcDay = (daysAgo: number, at = Date.now()): string =>
  new Date((Math.floor(at / DAY_MS) - daysAgo) * DAY_MS).toISOString().slice(0, 10);
export const PLANTED_ANOMALIES = {
  /** 12 deliveries 2 days ago instead of 30..55 */
  volume: { metric: "deliveries_shipped", rule: "volume_anomaly", measure: "rows", daysAgo: 2, value: 12 },
  /** yesterday's payouts written in cents: the sum x100 */
  value: { metric: "seller_payouts", rule: "metric_value_anomaly", measure: "paid_out", daysAgo: 1 },
  /** Belgium's web orders stopped yesterday: the BE segment drops to 0, the total stays in its band */
  segment: { metric: "web_orders", rule: "volume_anomaly", measure: "rows", dimension: "country", value: "BE", daysAgo: 1 },
} as const;

export interface ExpectedProblem {
  metric: string;
  rule: string;
  status: "failing" | "warning";
  severity: "HIGH" | "MEDIUM";
  rows_affected: number;
  rows_total: number;
  message: string | RegExp;
}

/** Every test that does not pass, in the order the store returns them (metric, rule, name). */
export const EXPECTED_PROBLEMS: ExpectedProblem[] = [
  {
    metric: "active_customers",
    rule: "dimension_not_null",
    status: "warning",
    severity: "MEDIUM",
    rows_affected: 2,
    rows_total: 301,
    message: "2 of 301 rows (0.66%) have NULL or empty country",
  },
  // The inventory loader stopped 3 days ago (the age grows by the time since seeding).
  // Planted volume drop 2 days ago (the day in the message moves with the clock).
  {
    metric: "deliveries_shipped",
    rule: "volume_anomaly",
    status: "failing",
    severity: "MEDIUM",
    rows_affected: 1,
    rows_total: 2,
    message: /^1 of 2 days outside the expected range: \d{4}-\d{2}-\d{2} had 12 rows, expected [\d.,]+ to [\d.,]+$/,
  },
  {
    metric: "stock_on_hand",
    rule: "freshness",
    status: "failing",
    severity: "HIGH",
    rows_affected: 1,
    rows_total: 1000,
    message: /^newest row is 3d( \d+h)? old \(allowed 1d\)$/,
  },
  {
    metric: "gross_revenue",
    rule: "measure_not_null",
    status: "failing",
    severity: "HIGH",
    rows_affected: 3,
    rows_total: 4000,
    message: "3 of 4,000 rows (0.07%) have NULL amount",
  },
  {
    metric: "orders_by_segment",
    rule: "join_key_unique",
    status: "failing",
    severity: "HIGH",
    rows_affected: 1,
    rows_total: 301,
    message: "1 of 301 rows (0.33%) is an extra row with a duplicate id",
  },
  {
    metric: "units_sold_by_category",
    rule: "join_referential_integrity",
    status: "failing",
    severity: "HIGH",
    rows_affected: 5,
    rows_total: 5000,
    message: "5 of 5,000 rows (0.10%) have product_id with no match in shop.products.id",
  },
  // Derived: inherits gross_revenue's tests.
  {
    metric: "revenue_per_order",
    rule: "measure_not_null",
    status: "failing",
    severity: "HIGH",
    rows_affected: 3,
    rows_total: 4000,
    message: "3 of 4,000 rows (0.07%) have NULL amount",
  },
  // Planted value spike yesterday: amounts in cents (anomalies.severity: high).
  {
    metric: "seller_payouts",
    rule: "metric_value_anomaly",
    status: "failing",
    severity: "HIGH",
    rows_affected: 1,
    rows_total: 2,
    message: /^1 of 2 days outside the expected range: \d{4}-\d{2}-\d{2} was [\d,]+, expected [\d.,]+ to [\d.,]+$/,
  },
  {
    metric: "refund_amount",
    rule: "measure_non_negative",
    status: "warning",
    severity: "MEDIUM",
    rows_affected: 2,
    rows_total: 300,
    message: "2 of 300 rows (0.67%) have negative amount",
  },
  {
    metric: "refund_amount",
    rule: "timestamp_not_future",
    status: "warning",
    severity: "MEDIUM",
    rows_affected: 1,
    rows_total: 300,
    message: "1 of 300 rows (0.33%) has created_at in the future",
  },
  {
    metric: "identified_visitors",
    rule: "count_key_not_null",
    status: "failing",
    severity: "MEDIUM",
    rows_affected: 500,
    rows_total: 2000,
    message: /^500 of 2,000 rows \(25\.00%\) have NULL customer_id/,
  },
  {
    metric: "sessions_by_checkout_step",
    rule: "columns_exist",
    status: "failing",
    severity: "HIGH",
    rows_affected: 1,
    rows_total: 1,
    message: "1 of 1 columns missing: shop.sessions.checkout_step",
  },
  {
    metric: "sessions_by_checkout_step",
    rule: "dimension_not_null",
    status: "warning",
    severity: "MEDIUM",
    rows_affected: 0,
    rows_total: 0,
    message: "not evaluated: column missing: shop.sessions.checkout_step",
  },
  // The planted segment outage: Belgium's web orders stopped yesterday (the total is not flagged).
  {
    metric: "web_orders",
    rule: "volume_anomaly",
    status: "failing",
    severity: "MEDIUM",
    rows_affected: 1,
    rows_total: 2,
    message: /^country = 'BE': 1 of 2 days outside the expected range: \d{4}-\d{2}-\d{2} had 0 rows, expected [\d.,]+ to [\d.,]+$/,
  },
  {
    metric: "web_orders",
    rule: "metric_value_anomaly",
    status: "failing",
    severity: "MEDIUM",
    rows_affected: 1,
    rows_total: 2,
    message: /^country = 'BE': 1 of 2 days outside the expected range: \d{4}-\d{2}-\d{2} was 0, expected [\d.,]+ to [\d.,]+$/,
  },
];
export const problemsOf = (metric: string) => EXPECTED_PROBLEMS.filter((p) => p.metric === metric);

/**
 * Run summary of the demo: every inferred test runs (derived metrics repeat their inputs' tests);
 * the planted defects fail or warn, everything else passes. How many tests the rules infer is the
 * inference's business, so the total comes from compiling demo/metrics here.
 */
const demoCatalogue = await loadCatalogSnapshot(DEMO_METRICS_DIR);
const failingCount = EXPECTED_PROBLEMS.filter((p) => p.status === "failing").length;
const warningCount = EXPECTED_PROBLEMS.length - failingCount;
export const EXPECTED_RUN_SUMMARY = {
  total: demoCatalogue.tests.length,
  passing: demoCatalogue.tests.length - EXPECTED_PROBLEMS.length,
  failing: failingCount,
  warning: warningCount,
};

/** Rules whose message is "<n> of <total> rows (<pct>%) ...". */
export const ROW_RULES = new Set([
  "measure_not_null",
  "count_key_not_null",
  "dimension_not_null",
  "measure_finite",
  "measure_non_negative",
  "timestamp_not_future",
  "join_key_unique",
  "join_referential_integrity",
]);

export const TEST_RESULT_FIELDS = [
  "check",
  "confidence",
  "message",
  "metric",
  "name",
  "rows_affected",
  "rows_total",
  "rule",
  "sample_sql",
  "severity",
  "status",
];
export const INFERRED_TEST_FIELDS = ["check", "confidence", "metric", "name", "rule", "severity", "status"];
export const SCAN_FIELDS = ["error", "finished_at", "scan_id", "started_at", "status", "summary", "trigger"];

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** An ISO 8601 UTC timestamp (as Date#toISOString writes it) within the last hour. */
export function expectIso(value: unknown): void {
  expect(value).toMatch(ISO);
  expect(new Date(value as string).toISOString()).toBe(value);
  expect(Math.abs(Date.now() - Date.parse(value as string))).toBeLessThan(3_600_000);
}

export function expectUuid(value: unknown): void {
  expect(value).toMatch(UUID);
}

const fmt = (n: number) => n.toLocaleString("en-US");

/** Fields, types and internal consistency of one test result (any status). */
export function expectTestResult(t: Record<string, unknown>): void {
  expect(Object.keys(t).sort()).toEqual(TEST_RESULT_FIELDS);
  for (const key of ["metric", "rule", "name", "check", "message", "sample_sql"]) expect(typeof t[key], key).toBe("string");
  expect(["passing", "failing", "warning"]).toContain(t.status);
  expect(["HIGH", "MEDIUM", "LOW"]).toContain(t.severity);
  expect(["high", "medium", "low"]).toContain(t.confidence);
  const affected = t.rows_affected as number;
  const total = t.rows_total as number;
  expect(Number.isInteger(affected) && affected >= 0, `rows_affected ${affected}`).toBe(true);
  expect(Number.isInteger(total) && total >= 0, `rows_total ${total}`).toBe(true);
  expect(affected).toBeLessThanOrEqual(total);
  // No demo test has a tolerance: a passing test has no violations, a problem has some
  // (except a test that could not run, a warning that counted nothing).
  const message = t.message as string;
  if (message.startsWith("not evaluated: ")) expect([t.status, affected, total]).toEqual(["warning", 0, 0]);
  else expect(affected === 0).toBe(t.status === "passing");
  expect(t.sample_sql).toMatch(/^SELECT /);
  if (message.startsWith("not applicable: ")) {
    // e.g. measure_finite on an integer column: nothing to examine
    expect([t.status, affected, total]).toEqual(["passing", 0, 0]);
  } else if (message.startsWith("not evaluated: ")) {
    expect(message).toMatch(/^not evaluated: column missing: shop\.[a-z_]+\.[a-z_]+$/);
  } else if (ROW_RULES.has(t.rule as string)) {
    // "<count> of <total> rows (<percentage>%) ..."
    const pct = affected === 0 ? "0.00" : ((affected / total) * 100).toFixed(2);
    expect(message.startsWith(`${fmt(affected)} of ${fmt(total)} rows (${pct}%) `), message).toBe(true);
  } else if (t.rule === "table_not_empty") {
    expect(message).toMatch(new RegExp(`^${fmt(total)} rows in shop\\.[a-z]+`));
  } else if ((t.rule as string).endsWith("columns_exist")) {
    // schema checks: rows are columns here
    expect(message.startsWith(`${affected} of ${total} columns missing`), message).toBe(true);
  } else if (t.rule === "freshness") {
    // refunds carries a row dated 30 days ahead (timestamp_not_future's finding): its newest row is in the future.
    expect(message).toMatch(/^newest row is \d+[dhms]( \d+[hms])? (old|in the future) \(allowed \d+[dhmsw]\)$/);
  } else {
    // a rule this suite does not know yet: its message still states the count
    expect(message.includes(fmt(affected)) || message.includes(fmt(total)), `${String(t.rule)}: ${message}`).toBe(true);
  }
}

/** The expected problem this failing/warning result is, by (metric, rule), with exact values. */
export function expectProblem(t: Record<string, unknown>, p: ExpectedProblem): void {
  expectTestResult(t);
  expect(t).toMatchObject({
    metric: p.metric,
    rule: p.rule,
    status: p.status,
    severity: p.severity,
    rows_affected: p.rows_affected,
    rows_total: p.rows_total,
  });
  if (typeof p.message === "string") expect(t.message).toBe(p.message);
  else expect(t.message).toMatch(p.message);
}

/**
 * The value of one Prometheus sample with exactly these labels, or undefined. Labels in `ignore`
 * may be there or not (the `table` label a metric's status series carries while an incident explains it).
 */
export function promSample(text: string, name: string, labels: Record<string, string> = {}, ignore: string[] = []): number | undefined {
  for (const line of text.split("\n")) {
    const m = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries(
      [...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]).filter(([label]) => !ignore.includes(label!)),
    );
    const wanted = Object.entries(labels);
    if (wanted.length === Object.keys(got).length && wanted.every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

/** Freshness messages state an age that moves with the clock ("newest row is 4s old"): mask it to compare two runs. */
export function maskAges<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replace(/newest row is [^"]*? old/g, "newest row is <age> old")) as T;
}
