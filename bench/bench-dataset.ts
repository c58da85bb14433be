// The benchmark's shop warehouse: an orders fact table (5M rows by default) and five other
// tables, with planted defects so that the inferred tests have something to find.
// Same rules as src/warehouse/demo-dataset.ts: rows come from numbers(N) with arithmetic on
// `number` (no rand(), so counts are exact), timestamps are relative to now(), and every
// statement runs on ClickHouse 18.16 and 26.x. Defects are spaced by `every(n)` so that each
// table holds exactly DEFECTS of each kind, whatever the size.
import { quoteIdentifier } from "../src/sql/identifiers.js";

/** column -> ClickHouse type, per table (the hand-written baseline reads the types from here). */
export type TableColumns = Record<string, Record<string, string>>;

export const DEFECTS = 5;
const DAY = 86_400;

export interface ShopSizes {
  orders: number;
  customers: number;
  products: number;
  refunds: number;
  sessions: number;
  inventory: number;
}

export function shopSizes(orders: number): ShopSizes {
  const at = (divisor: number, min: number) => Math.max(min, Math.floor(orders / divisor));
  return {
    orders,
    customers: at(25, 100),
    products: at(250, 20),
    refunds: at(10, 50),
    sessions: at(2.5, 100),
    inventory: at(25, 100),
  };
}

export const SHOP_COLUMNS: TableColumns = {
  orders: {
    id: "UInt64",
    customer_id: "UInt32",
    product_id: "UInt32",
    status: "String",
    channel: "String",
    amount: "Nullable(Float64)",
    discount: "Float64",
    quantity: "UInt32",
    shipping_cost: "Float32",
    created_at: "DateTime",
  },
  customers: { id: "UInt32", country: "Nullable(String)", segment: "String", lifetime_value: "Float64", signed_up_at: "DateTime" },
  products: { id: "UInt32", category: "String", brand: "String", price: "Float64", unit_cost: "Float64" },
  refunds: { id: "UInt64", order_id: "UInt64", amount: "Float64", reason: "String", created_at: "DateTime" },
  sessions: {
    id: "UInt64",
    customer_id: "Nullable(UInt32)",
    device: "String",
    page_views: "UInt32",
    duration_seconds: "Float64",
    started_at: "DateTime",
  },
  inventory: { id: "UInt32", product_id: "UInt32", warehouse: "String", quantity: "Int32", snapshot_at: "DateTime" },
};

/** `(number + 1) % k = 0` for DEFECTS rows of n (offset shifts which rows, so defects do not coincide). */
function every(n: number, offset = 0): string {
  const k = Math.max(1, Math.floor(n / DEFECTS));
  return `(number + ${1 + offset}) % ${k} = 0`;
}

export function createTable(db: string, table: string, columns: Record<string, string>): string {
  const list = Object.entries(columns)
    .map(([name, type]) => `${quoteIdentifier(name)} ${type}`)
    .join(", ");
  return `CREATE TABLE ${quoteIdentifier(db)}.${quoteIdentifier(table)} (${list}) ENGINE = MergeTree() ORDER BY id`;
}

/** Statements that (re)create the database and fill it; run with a non-readonly client. */
export function shopStatements(db: string, sizes: ShopSizes): string[] {
  const t = (table: string) => `${quoteIdentifier(db)}.${quoteIdentifier(table)}`;
  const s = sizes;
  const creates = Object.entries(SHOP_COLUMNS).map(([table, columns]) => createTable(db, table, columns));
  return [
    `DROP DATABASE IF EXISTS ${quoteIdentifier(db)}`,
    `CREATE DATABASE ${quoteIdentifier(db)}`,
    ...creates,
    // Orders: 10 a second back from now. Defects: amount NULL, discount NaN, shipping_cost
    // negative, product_id with no product, channel '', created_at 3 days in the future.
    `INSERT INTO ${t("orders")} SELECT number + 1, toUInt32(number % ${s.customers} + 1),
       toUInt32(if(${every(s.orders, 11)}, ${s.products + 1000}, number % ${s.products} + 1)),
       multiIf(number % 10 < 8, 'completed', number % 10 = 8, 'cancelled', 'pending'),
       if(${every(s.orders, 13)}, '', ['web', 'app', 'store', 'partner'][number % 4 + 1]),
       if(${every(s.orders, 17)}, CAST(NULL AS Nullable(Float64)), CAST(toFloat64(500 + (number * 7919) % 49500) / 100 AS Nullable(Float64))),
       if(${every(s.orders, 19)}, nan, toFloat64(number % 7) / 2),
       toUInt32(number % 5 + 1),
       toFloat32(if(${every(s.orders, 23)}, -4.5, (number % 20) / 2)),
       if(${every(s.orders, 29)}, now() + ${3 * DAY}, now() - intDiv(number, 10))
     FROM numbers(${s.orders})`,
    // Customers, plus DEFECTS re-imported duplicates of existing ids. Defect: country NULL or ''.
    `INSERT INTO ${t("customers")} SELECT toUInt32(number + 1),
       multiIf(${every(s.customers, 3)}, CAST(NULL AS Nullable(String)), ${every(s.customers, 5)}, CAST('' AS Nullable(String)),
         CAST(['US', 'DE', 'FR', 'GB', 'NL', 'JP'][number % 6 + 1] AS Nullable(String))),
       ['consumer', 'business', 'enterprise'][number % 3 + 1], toFloat64((number * 31) % 100000) / 10, now() - number * 60
     FROM numbers(${s.customers})`,
    `INSERT INTO ${t("customers")} SELECT toUInt32(number * 7 + 1), CAST('DE' AS Nullable(String)), 'consumer', 0, now() FROM numbers(${DEFECTS})`,
    // Products: clean.
    `INSERT INTO ${t("products")} SELECT toUInt32(number + 1), ['books', 'games', 'garden', 'kitchen', 'toys'][number % 5 + 1],
       concat('brand_', toString(number % 40)), toFloat64(5 + (number * 37) % 200) + 0.99, toFloat64(2 + (number * 37) % 150)
     FROM numbers(${s.products})`,
    // Refunds of existing orders. Defects: negative amount, an order_id with no order.
    `INSERT INTO ${t("refunds")} SELECT number + 1, if(${every(s.refunds, 7)}, ${s.orders * 10 + 7}, (number * 10) % ${s.orders} + 1),
       if(${every(s.refunds, 3)}, -1, 1) * (toFloat64(5 + (number * 13) % 90) + 0.5),
       ['damaged', 'late', 'wrong_item', 'other'][number % 4 + 1], now() - number * 2
     FROM numbers(${s.refunds})`,
    // Sessions: customer_id NULL for anonymous visitors (a quarter, by design). Defect: device ''.
    `INSERT INTO ${t("sessions")} SELECT number + 1,
       if(number % 4 = 0, CAST(NULL AS Nullable(UInt32)), CAST(toUInt32(number % ${s.customers} + 1) AS Nullable(UInt32))),
       if(${every(s.sessions, 5)}, '', ['desktop', 'mobile', 'tablet'][number % 3 + 1]), toUInt32(number % 12 + 1),
       toFloat64((number * 17) % 3600), now() - intDiv(number, 5)
     FROM numbers(${s.sessions})`,
    // Inventory snapshots: the loader stopped 3 days ago (freshness 1d fails). Defect: negative quantity.
    `INSERT INTO ${t("inventory")} SELECT toUInt32(number + 1), toUInt32(number % ${s.products} + 1), ['AMS', 'NYC', 'SIN'][number % 3 + 1],
       toInt32(if(${every(s.inventory, 3)}, -2, (number * 17) % 120)), now() - ${3 * DAY} - intDiv(number, 100) * 60
     FROM numbers(${s.inventory})`,
  ];
}
