// Tables behind dbt Labs' reference MetricFlow project (test/fixtures/metricflow), built from
// its semantic models' columns: a clean database, on which no test may fail (no false alarms
// on a real semantic layer), and a defective one with one planted defect per rule that the
// project's definitions imply. Classic SQL only: runs on ClickHouse 18.16 and on chdb.

/** Row counts of the clean tables. */
export const MF_ROWS = { accounts: 20, bookings: 40, listings: 10, verifications: 10, revenue: 30, views: 10 } as const;

/** Planted in the defective database, by row number n (1-based). */
export const MF_DEFECTS = {
  /** fct_bookings.booking_value NULL (n = 5 is instant, 6 is not) */
  bookingValueNull: [5, 6],
  /** fct_bookings.booking_value NaN (instant) */
  bookingValueNaN: [7],
  /** fct_bookings.booking_value negative (not instant) */
  bookingValueNegative: [8],
  /** fct_bookings.is_instant NULL (a filter column: the row silently leaves instant_booking_value) */
  isInstantNull: [10],
  /** fct_bookings.referrer_id NULL (count(referrer_id) skips it) */
  referrerNull: [11, 12],
  /** fct_accounts.account_type NULL */
  accountTypeNull: [3],
  /** fct_revenue.revenue negative */
  revenueNegative: [29],
  /** fct_revenue.created_at in the future */
  revenueFuture: [30],
} as const;

const list = (ids: readonly number[]) => (ids.length === 0 ? "0" : ids.join(", "));

export function metricflowStatements(db: string, defective: boolean): string[] {
  const d = defective
    ? MF_DEFECTS
    : {
        bookingValueNull: [],
        bookingValueNaN: [],
        bookingValueNegative: [],
        isInstantNull: [],
        referrerNull: [],
        accountTypeNull: [],
        revenueNegative: [],
        revenueFuture: [],
      };
  return [
    `CREATE DATABASE IF NOT EXISTS ${db}`,
    `CREATE TABLE ${db}.fct_accounts (n UInt32, ds Date, account_balance Float64, account_type Nullable(String), user_id UInt32, ds2 Date, account_type2 String)
       ENGINE = MergeTree() ORDER BY n`,
    `INSERT INTO ${db}.fct_accounts SELECT n, today() - toInt32(n % 5), toFloat64(n * 10) + 0.5,
       if(n IN (${list(d.accountTypeNull)}), CAST(NULL AS Nullable(String)), CAST(['checking', 'savings'][n % 2 + 1] AS Nullable(String))),
       n % 10 + 1, today(), 'x'
     FROM (SELECT toUInt32(number + 1) AS n FROM numbers(${MF_ROWS.accounts}))`,

    // A defective project lost a column its filter reads: listing_id.
    `CREATE TABLE ${db}.fct_bookings (n UInt32, ds Date, ds_partitioned Date, booking_paid_at DateTime, is_instant Nullable(UInt8),
       booking_value Nullable(Float64), guest_id UInt32, host_id UInt32, ${defective ? "" : "listing_id Nullable(UInt32), "}referrer_id Nullable(UInt32))
       ENGINE = MergeTree() ORDER BY n`,
    `INSERT INTO ${db}.fct_bookings SELECT n, today() - toInt32(n % 3), today() - toInt32(n % 3), now() - n * 3600,
       if(n IN (${list(d.isInstantNull)}), CAST(NULL AS Nullable(UInt8)), CAST(n % 2 AS Nullable(UInt8))),
       multiIf(n IN (${list(d.bookingValueNull)}), CAST(NULL AS Nullable(Float64)),
               n IN (${list(d.bookingValueNaN)}), CAST(0 / 0 AS Nullable(Float64)),
               n IN (${list(d.bookingValueNegative)}), CAST(-20 AS Nullable(Float64)),
               CAST(n * 2.5 + 1 AS Nullable(Float64))),
       n % 15 + 1, n % 7 + 1,
       ${defective ? "" : "if(n > 37, CAST(NULL AS Nullable(UInt32)), CAST(n % 10 + 1 AS Nullable(UInt32))),"}
       if(n IN (${list(d.referrerNull)}), CAST(NULL AS Nullable(UInt32)), CAST(n % 5 + 1 AS Nullable(UInt32)))
     FROM (SELECT toUInt32(number + 1) AS n FROM numbers(${MF_ROWS.bookings}))`,

    `CREATE TABLE ${db}.dim_listings_latest (listing_id UInt32, user_id UInt32, created_at Date, country String, is_lux UInt8, capacity UInt32)
       ENGINE = MergeTree() ORDER BY listing_id`,
    `INSERT INTO ${db}.dim_listings_latest SELECT n, n % 4 + 1, today() - toInt32(n), ['us', 'ca'][n % 2 + 1], n % 2, n % 4 + 1
     FROM (SELECT toUInt32(number + 1) AS n FROM numbers(${MF_ROWS.listings}))`,
    // Two listing rows for listing 3: its primary entity is no longer unique.
    ...(defective ? [`INSERT INTO ${db}.dim_listings_latest VALUES (3, 1, today(), 'us', 1, 2)`] : []),

    `CREATE TABLE ${db}.fct_id_verifications (verification_id UInt32, ds DateTime, ds_partitioned Date, verification_type String, user_id UInt32)
       ENGINE = MergeTree() ORDER BY verification_id`,
    // The defective project's verifications were never loaded.
    ...(defective
      ? []
      : [
          `INSERT INTO ${db}.fct_id_verifications SELECT n, now() - n * 60, today(), ['passport', 'license'][n % 2 + 1], n FROM (SELECT toUInt32(number + 1) AS n FROM numbers(${MF_ROWS.verifications}))`,
        ]),

    `CREATE TABLE ${db}.fct_revenue (n UInt32, revenue Float64, created_at DateTime, user_id UInt32) ENGINE = MergeTree() ORDER BY n`,
    `INSERT INTO ${db}.fct_revenue SELECT n,
       if(n IN (${list(d.revenueNegative)}), -5, toFloat64(n * 3) + 1),
       if(n IN (${list(d.revenueFuture)}), now() + 86400, now() - n * 86400), n % 10 + 1
     FROM (SELECT toUInt32(number + 1) AS n FROM numbers(${MF_ROWS.revenue}))`,

    // views_source declares user_id a primary entity (create_a_cycle_in_the_join_graph): one row per user.
    // The defective project's views table lost a dimension column (schema drift).
    `CREATE TABLE ${db}.fct_views (ds Date, ${defective ? "" : "ds_partitioned Date, "}listing_id UInt32, user_id UInt32) ENGINE = MergeTree() ORDER BY user_id`,
    `INSERT INTO ${db}.fct_views SELECT today(), ${defective ? "" : "today(), "}n % 10 + 1, n FROM (SELECT toUInt32(number + 1) AS n FROM numbers(${MF_ROWS.views}))`,
  ];
}
