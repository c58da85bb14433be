// The tables of the isolation tests: orders whose ordered_at is NULL on some rows (a cast of it
// throws) and whose customer_id points nowhere on others; events whose day_text is not a date on
// some rows (toDate of it throws). Classic SQL: ClickHouse 18.16 and chdb.

export const ORDERS = 200;
/** orders 1..20 point at customers that do not exist; orders 101..120 have a NULL ordered_at. */
export const ORPHANS = 20;
export const NULL_TIMES = 20;
/** events 46..50 have a day_text that is no date */
export const EVENTS = 50;
export const UNPARSABLE_DAYS = 5;

export function isolationStatements(db: string): string[] {
  return [
    `CREATE DATABASE ${db}`,
    `CREATE TABLE ${db}.customers (id UInt32, name String) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${db}.customers SELECT toUInt32(number + 1), concat('c', toString(number + 1)) FROM numbers(50)`,
    `CREATE TABLE ${db}.orders (order_id UInt32, customer_id UInt32, ordered_at Nullable(DateTime), amount Float64)
       ENGINE = MergeTree() ORDER BY order_id`,
    `INSERT INTO ${db}.orders SELECT n,
       if(n <= ${ORPHANS}, toUInt32(1000 + n), toUInt32(n % 50 + 1)),
       if(n > 100 AND n <= ${100 + NULL_TIMES}, CAST(NULL AS Nullable(DateTime)), CAST(now() - n * 60 AS Nullable(DateTime))),
       n * 1.5
     FROM (SELECT toUInt32(number + 1) AS n FROM numbers(${ORDERS}))`,
    `CREATE TABLE ${db}.events (id UInt32, day_text String) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${db}.events SELECT n, if(n > ${EVENTS - UNPARSABLE_DAYS}, 'n/a', toString(today() - n))
     FROM (SELECT toUInt32(number + 1) AS n FROM numbers(${EVENTS}))`,
  ];
}
