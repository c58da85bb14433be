// The demo shop dataset the embedded engine is seeded with. It carries deliberate defects so
// the demo catalogue (demo/metrics) shows every status; demo/README.md lists them with counts.
// Rules for every statement here (they must run on ClickHouse 18.16 AND 26.7):
// - rows come from numbers(N) with arithmetic on `number`: deterministic, no rand();
// - timestamps are relative to now(), so the data is fresh whenever it is seeded;
// - drop-and-recreate, so seeding twice gives the same rows (not safe to run concurrently
//   against the same database: use a different `database` per concurrent seeder).
import { quoteIdentifier } from "../sql/identifiers.js";

export const DEMO_DATABASE = "shop";

const DAY = 86_400;

export function demoDatasetStatements(database: string = DEMO_DATABASE): string[] {
  const db = quoteIdentifier(database);
  const t = (table: string) => `${db}.${quoteIdentifier(table)}`;
  const tables = ["customers", "products", "orders", "refunds", "sessions", "inventory", "deliveries", "payouts", "web_orders"];
  // Day d back from today (d = 0: today so far), its UTC day number and weekday (0 = Monday):
  // the anomaly tables below have 10 weeks of history with a weekly cycle, bucketed by UTC day.
  const dayNumber = (d: string) => `(intDiv(toUInt32(now()), ${DAY}) - ${d})`;
  const weekday = (d: string) => `((${dayNumber(d)} + 3) % 7)`;
  return [
    `CREATE DATABASE IF NOT EXISTS ${db}`,
    ...tables.map((table) => `DROP TABLE IF EXISTS ${t(table)}`),

    // 300 customers + 1 duplicated id (7): a re-imported row. Defects: country NULL (id 42)
    // and '' (id 137) = 2 of 301 rows (0.66%), and 1 duplicate key.
    `CREATE TABLE ${t("customers")} (id UInt32, name String, country Nullable(String), segment String, signed_up_at DateTime) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${t("customers")} SELECT toUInt32(number + 1), concat('Customer ', toString(number + 1)),
       multiIf(number + 1 = 42, CAST(NULL AS Nullable(String)), number + 1 = 137, CAST('' AS Nullable(String)), CAST(['US', 'DE', 'FR', 'GB', 'NL'][number % 5 + 1] AS Nullable(String))),
       ['consumer', 'business', 'enterprise'][number % 3 + 1], now() - (number + 1) * 3600
     FROM numbers(300)`,
    `INSERT INTO ${t("customers")} SELECT toUInt32(7), 'Customer 7 (re-imported)', CAST('DE' AS Nullable(String)), 'consumer', now() - 7 * 3600 FROM numbers(1)`,

    // 50 products: clean.
    `CREATE TABLE ${t("products")} (id UInt32, name String, category String, price Float64) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${t("products")} SELECT toUInt32(number + 1), concat('Product ', toString(number + 1)),
       ['books', 'games', 'garden', 'kitchen', 'toys'][number % 5 + 1], toFloat64(5 + (number * 37) % 200) + 0.99
     FROM numbers(50)`,

    // 5000 orders, one a minute going back from now. 80% completed (number % 10 < 8).
    // Defects: amount NULL in 3 completed orders (ids 101, 202, 303); product_id 999 (no such
    // product) in 5 orders (ids 1000, 2000, ..., 5000).
    `CREATE TABLE ${t("orders")} (id UInt32, customer_id UInt32, product_id UInt32, status String, channel String,
       amount Nullable(Float64), quantity UInt32, created_at DateTime) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${t("orders")} SELECT toUInt32(number + 1), toUInt32(number % 300 + 1),
       toUInt32(if((number + 1) % 1000 = 0, 999, number % 50 + 1)),
       multiIf(number % 10 < 8, 'completed', number % 10 = 8, 'cancelled', 'pending'),
       ['web', 'app', 'store'][number % 3 + 1],
       if(number + 1 IN (101, 202, 303), CAST(NULL AS Nullable(Float64)), CAST(toFloat64(1000 + (number * 7919) % 49000) / 100 AS Nullable(Float64))),
       toUInt32(number % 4 + 1), now() - number * 60
     FROM numbers(5000)`,

    // 300 refunds, one every 10 minutes, each for an existing order (1, 17, 33, ...).
    // Defects: negative amount in ids 50 and 250 (2 of 300, 0.67%); created_at 30 days in the
    // future in id 300 (1 of 300, 0.33%).
    `CREATE TABLE ${t("refunds")} (id UInt32, order_id UInt32, amount Float64, reason String, created_at DateTime) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${t("refunds")} SELECT toUInt32(number + 1), toUInt32(number * 16 + 1),
       if(number + 1 IN (50, 250), -1, 1) * (toFloat64(5 + (number * 13) % 90) + 0.5),
       ['damaged', 'late', 'wrong_item'][number % 3 + 1],
       if(number + 1 = 300, now() + ${30 * DAY}, now() - number * 600)
     FROM numbers(300)`,

    // 2000 web sessions, one every 2 minutes: clean. customer_id NULL = anonymous visitor.
    `CREATE TABLE ${t("sessions")} (id UInt32, customer_id Nullable(UInt32), device String, page_views UInt32, started_at DateTime)
       ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${t("sessions")} SELECT toUInt32(number + 1),
       if(number % 4 = 0, CAST(NULL AS Nullable(UInt32)), CAST(toUInt32(number % 300 + 1) AS Nullable(UInt32))),
       ['desktop', 'mobile', 'tablet'][number % 3 + 1], toUInt32(number % 12 + 1), now() - number * 120
     FROM numbers(2000)`,

    // Daily stock snapshots of 50 products in 2 warehouses, 10 days of them. Defect: the loader
    // stopped 3 days ago, so the newest snapshot_at is now() - 3 days (freshness 1d fails).
    `CREATE TABLE ${t("inventory")} (id UInt32, product_id UInt32, warehouse String, quantity UInt32, snapshot_at DateTime)
       ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${t("inventory")} SELECT toUInt32(number + 1), toUInt32(number % 50 + 1), ['AMS', 'NYC'][intDiv(number, 50) % 2 + 1],
       toUInt32((number * 17) % 120), now() - ${3 * DAY} - intDiv(number, 100) * ${DAY}
     FROM numbers(1000)`,

    // Deliveries over 70 days, up to 60 a day spread over the day (slot j of day d at j * 24 min):
    // 45..55 on weekdays, 30..36 at weekends. Defect: 2 days ago only 12 went out (a carrier feed
    // dropped), a volume drop volume_anomaly flags. Nothing after now().
    `CREATE TABLE ${t("deliveries")} (id UInt32, carrier String, weight_kg Float64, shipped_at DateTime) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${t("deliveries")} SELECT toUInt32(number + 1), ['dhl', 'ups', 'postnl'][number % 3 + 1], toFloat64(1 + (number * 13) % 20) / 2, ts
     FROM (SELECT number, intDiv(number, 60) AS d, number % 60 AS j,
                  toDateTime(${dayNumber("d")} * ${DAY} + j * 1440) AS ts,
                  if(d = 2, 12, if(${weekday("d")} >= 5, 30 + (d * 17) % 7, 45 + (d * 37) % 11)) AS n
             FROM numbers(4200))
     WHERE j < n AND ts <= now()`,

    // Payouts to sellers over 70 days, 20..24 a day (hourly slots up to 23:30, so each day's
    // bucket is complete at midnight: a day ending earlier would wait for the next day's first
    // payout, by the table's usual gap, before it is scored), 50..149 EUR each. Defect:
    // yesterday's batch was written in cents, so the day's sum is 100 times too large while the
    // number of rows is normal: metric_value_anomaly flags it, volume_anomaly does not.
    `CREATE TABLE ${t("payouts")} (id UInt32, seller_id UInt32, amount Float64, paid_at DateTime) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${t("payouts")} SELECT toUInt32(number + 1), toUInt32(number % 40 + 1), toFloat64(50 + (number * 31) % 100) * if(d = 1, 100, 1), ts
     FROM (SELECT number, intDiv(number, 24) AS d, number % 24 AS j,
                  20 + (d * 7) % 5 AS n,
                  toDateTime(${dayNumber("d")} * ${DAY} + (j + 24 - n) * 3600 + 1800) AS ts
             FROM numbers(1680))
     WHERE j < n AND ts <= now()`,

    // Web shop orders over 70 days by country (segments: [country]), spread over each day (slot
    // j at j * 86 s): US 800, DE 500, GB 300, FR 200, NL 120, BE 80 a weekday, 70 % of that at
    // weekends, times a day's factor (0.92..1.08) and a country's (0.90..1.10). Defect: Belgium's
    // orders stopped yesterday (a feed lost): BE is 4 % of the day, so the total stays inside its
    // band while the BE segment drops from some 80 to 0, which volume_anomaly by country flags.
    `CREATE TABLE ${t("web_orders")} (id UInt32, country String, amount Float64, created_at DateTime) ENGINE = MergeTree() ORDER BY created_at`,
    `INSERT INTO ${t("web_orders")} SELECT toUInt32(number + 1), country, toFloat64(2000 + (number * 7919) % 8000) / 100, ts
     FROM (SELECT number, intDiv(number, 6000) AS d, intDiv(number % 6000, 1000) AS k, number % 1000 AS j,
                  ['US', 'DE', 'GB', 'FR', 'NL', 'BE'][k + 1] AS country,
                  toDateTime(${dayNumber("d")} * ${DAY} + j * 86) AS ts,
                  toUInt32([800, 500, 300, 200, 120, 80][k + 1] * if(${weekday("d")} >= 5, 0.7, 1.0)
                    * (0.92 + ((d * 29) % 17) / 100) * (0.9 + ((d * 37 + k * 53) % 21) / 100)) AS n
             FROM numbers(${70 * 6000}))
     WHERE j < n AND ts <= now() AND NOT (k = 5 AND d = 1)`,
  ];
}

/** Seeds the demo dataset with an admin (non-read-only) executor, statement by statement. */
export async function seedDemoDataset(exec: (sql: string) => Promise<void>, database: string = DEMO_DATABASE): Promise<void> {
  for (const statement of demoDatasetStatements(database)) await exec(statement);
}
