// The correctness fixture: small tables with defects planted at known ids, so every
// inferred rule has an exact expected count (with and without the filter) and every
// violating row the sample queries return can be checked against the planted ids.
// Plain CREATE TABLE / INSERT ... SELECT FROM numbers() / VALUES: runs on ClickHouse 18.16
// (admin connection) and on current chdb alike.

const DAY = 86_400;

/** orders: 200 rows, id 1..200. status: 'cancelled' when id % 10 is 9 or 0, else 'completed'. */
export const ORDERS = 200;
export const FILTER = "status = 'completed'";
export const isCompleted = (id: number): boolean => id % 10 !== 9 && id % 10 !== 0;

/** Planted defects, by orders.id (customers/events are listed separately). */
export const DEFECTS = {
  amountNull: [11, 12, 19, 20, 21],
  amountNaN: [31, 39, 40],
  amountInf: [41, 50],
  amountNegative: [61, 62, 63, 69, 70, 80],
  countryNull: [101, 109],
  countryEmpty: [102, 110, 120],
  /** the one MEDIUM defect under the default 1% tolerance (1 of 200 / 1 of 160) */
  channelEmpty: [5],
  customerNull: [121, 122, 129, 130],
  /** customer_id 9999: no such customer */
  customerOrphan: [141, 142, 143, 149, 150, 160, 170],
  /** created_at two days ahead */
  createdFuture: [181, 190, 191, 200],
} as const;

/** customers: ids 1..50 (UInt64, while orders.customer_id is Nullable(UInt32)), plus extra rows for 7, 7, 8. */
export const CUSTOMERS = 53;
export const DUPLICATE_CUSTOMER_IDS = [7, 8];
/** rows sharing a duplicated id: 3 of id 7, 2 of id 8 */
export const DUPLICATE_CUSTOMER_ROWS = 5;
export const SEGMENT_NULL_IDS = [10, 20];

/** events: 50 rows, the newest two days old. */
export const EVENTS = 50;
/** clean_sales: 100 rows, clean_products: 10 rows; no defects at all. */
export const CLEAN_SALES = 100;
export const CLEAN_PRODUCTS = 10;

/**
 * payments: 30 rows, id 1..30, one defect per row for the rules a primary key, an inner join,
 * an expression measure, a filter column and declared accepted values imply. method is
 * 'card' / 'cash' except row 25 (NULL) and row 26 ('crypto'): the metric's filter
 * `method IN ('card', 'cash')` keeps 28 rows.
 */
export const PAYMENTS = 30;
export const PAYMENTS_FILTER = "method IN ('card', 'cash')";
export const PAYMENTS_FILTERED = 28;
export const PAYMENT_DEFECTS = {
  /** payment_id NULL */
  keyNull: 30,
  /** payment_id 28 again */
  keyDuplicate: 29,
  /** order_id NULL (the join is inner: the row drops out) */
  orderNull: 27,
  /** order_id 9999: no such order */
  orderOrphan: 22,
  /** fee NULL: amount - fee is NULL */
  feeNull: 24,
  /** fee 1000 > amount: amount - fee is negative */
  netNegative: 23,
  /** method NULL: the filter silently drops it */
  methodNull: 25,
  /** method 'crypto': not an accepted value */
  methodUnknown: 26,
} as const;

export type Defect = keyof typeof DEFECTS;

/** ids of a defect, optionally only the rows the metric filter keeps. */
export function defectIds(defect: Defect | Defect[], filtered = false): number[] {
  const all = (Array.isArray(defect) ? defect : [defect]).flatMap((d) => [...DEFECTS[d]]);
  return filtered ? all.filter(isCompleted) : all;
}

const list = (ids: readonly number[]) => ids.join(", ");

export function fixtureStatements(db: string): string[] {
  const d = DEFECTS;
  return [
    `CREATE DATABASE IF NOT EXISTS ${db}`,
    `CREATE TABLE ${db}.orders (id UInt32, customer_id Nullable(UInt32), amount Nullable(Float64), status String,
       country Nullable(String), channel String, created_at DateTime) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${db}.orders SELECT id,
       multiIf(id IN (${list(d.customerNull)}), CAST(NULL AS Nullable(UInt32)),
               id IN (${list(d.customerOrphan)}), CAST(9999 AS Nullable(UInt32)),
               CAST(id % 50 + 1 AS Nullable(UInt32))),
       multiIf(id IN (${list(d.amountNull)}), CAST(NULL AS Nullable(Float64)),
               id IN (${list(d.amountNaN)}), CAST(0 / 0 AS Nullable(Float64)),
               id IN (${list(d.amountInf)}), CAST(1 / 0 AS Nullable(Float64)),
               id IN (${list(d.amountNegative)}), CAST(-1.5 * id AS Nullable(Float64)),
               CAST(id % 50 + 0.5 AS Nullable(Float64))),
       if(id % 10 IN (9, 0), 'cancelled', 'completed'),
       multiIf(id IN (${list(d.countryNull)}), CAST(NULL AS Nullable(String)),
               id IN (${list(d.countryEmpty)}), CAST('' AS Nullable(String)),
               CAST(['US', 'DE', 'FR'][id % 3 + 1] AS Nullable(String))),
       if(id IN (${list(d.channelEmpty)}), '', ['web', 'app'][id % 2 + 1]),
       if(id IN (${list(d.createdFuture)}), now() + ${2 * DAY}, now() - id * 60)
     FROM (SELECT toUInt32(number + 1) AS id FROM numbers(${ORDERS}))`,

    `CREATE TABLE ${db}.customers (id UInt64, segment Nullable(String)) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${db}.customers SELECT toUInt64(number + 1),
       if(number + 1 IN (${list(SEGMENT_NULL_IDS)}), CAST(NULL AS Nullable(String)), CAST(['retail', 'business'][number % 2 + 1] AS Nullable(String)))
     FROM numbers(50)`,
    `INSERT INTO ${db}.customers VALUES (7, 'retail'), (7, 'retail'), (8, 'business')`,

    `CREATE TABLE ${db}.clean_products (id UInt32, category String) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${db}.clean_products SELECT toUInt32(number + 1), ['books', 'games'][number % 2 + 1] FROM numbers(${CLEAN_PRODUCTS})`,
    `CREATE TABLE ${db}.clean_sales (id UInt32, product_id UInt32, price Float64, quantity UInt32, region String, sold_at DateTime)
       ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${db}.clean_sales SELECT toUInt32(number + 1), toUInt32(number % ${CLEAN_PRODUCTS} + 1), toFloat64(number % 7) + 0.25,
       toUInt32(number % 3 + 1), ['north', 'south'][number % 2 + 1], now() - number * 30
     FROM numbers(${CLEAN_SALES})`,

    // label is a String: declared as a timestamp by one metric, it cannot be evaluated.
    `CREATE TABLE ${db}.events (id UInt32, kind String, label String, happened_at DateTime) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${db}.events SELECT toUInt32(number + 1), ['click', 'view'][number % 2 + 1], 'x', now() - ${2 * DAY} - number * 60
     FROM numbers(${EVENTS})`,

    `CREATE TABLE ${db}.payments (id UInt32, payment_id Nullable(UInt32), order_id Nullable(UInt32), amount Float64, fee Nullable(Float64),
       method Nullable(String), paid_at DateTime) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${db}.payments SELECT id,
       multiIf(id = ${PAYMENT_DEFECTS.keyNull}, CAST(NULL AS Nullable(UInt32)), id = ${PAYMENT_DEFECTS.keyDuplicate}, CAST(28 AS Nullable(UInt32)), CAST(id AS Nullable(UInt32))),
       multiIf(id = ${PAYMENT_DEFECTS.orderNull}, CAST(NULL AS Nullable(UInt32)), id = ${PAYMENT_DEFECTS.orderOrphan}, CAST(9999 AS Nullable(UInt32)), CAST(id AS Nullable(UInt32))),
       toFloat64(id * 10),
       multiIf(id = ${PAYMENT_DEFECTS.feeNull}, CAST(NULL AS Nullable(Float64)), id = ${PAYMENT_DEFECTS.netNegative}, CAST(1000 AS Nullable(Float64)), CAST(1 AS Nullable(Float64))),
       multiIf(id = ${PAYMENT_DEFECTS.methodNull}, CAST(NULL AS Nullable(String)), id = ${PAYMENT_DEFECTS.methodUnknown}, CAST('crypto' AS Nullable(String)),
               CAST(['card', 'cash'][id % 2 + 1] AS Nullable(String))),
       now() - id * 60
     FROM (SELECT toUInt32(number + 1) AS id FROM numbers(${PAYMENTS}))`,

    // Empty, and every column Nullable: 18.16 answers aggregates over them with NULL.
    `CREATE TABLE ${db}.empty_orders (id UInt32, customer_id Nullable(UInt32), amount Nullable(Float64), note Nullable(String),
       created_at Nullable(DateTime)) ENGINE = MergeTree() ORDER BY id`,
    `CREATE TABLE ${db}.empty_refs (id Nullable(UInt32), name String) ENGINE = MergeTree() ORDER BY name`,
  ];
}
