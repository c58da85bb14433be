// The benchmark's metric catalogue over the shop warehouse (bench-dataset.ts), generated as
// YAML files in a directory so that it goes through the daemon's real catalogue path
// (read files -> zod -> compile -> infer, src/services/load-catalog.ts).
// 60 metrics over 6 tables: several filters per table, joins to dimension tables, derived metrics.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { stringify } from "yaml";

export interface MeasureSpec {
  alias: string;
  function: "Sum" | "Count" | "CountDistinct" | "Avg" | "Min" | "Max";
  column?: string;
}

export interface JoinSpec {
  table: string;
  on: { column: string; references: string };
}

export interface MetricSpec {
  name: string;
  table?: string;
  timestamp?: string;
  freshness?: string;
  filter?: string;
  measures?: MeasureSpec[];
  dimensions?: { name: string; column: string; table?: string }[];
  joins?: JoinSpec[];
  kind?: "derived";
  inputs?: string[];
  /** anomaly settings, as the catalogue's `anomalies:` block */
  anomalies?: { segments?: string[] };
}

const sum = (column: string): MeasureSpec => ({ alias: `total_${column}`, function: "Sum", column });
const avg = (column: string): MeasureSpec => ({ alias: `avg_${column}`, function: "Avg", column });
const max = (column: string): MeasureSpec => ({ alias: `max_${column}`, function: "Max", column });
const min = (column: string): MeasureSpec => ({ alias: `min_${column}`, function: "Min", column });
const rows: MeasureSpec = { alias: "rows", function: "Count" };
const distinct = (column: string): MeasureSpec => ({ alias: `distinct_${column}`, function: "CountDistinct", column });

/** Metrics for every (filter, measure) pair of one table, with dimensions/joins rotated in. */
function family(
  prefix: string,
  table: string,
  base: Omit<MetricSpec, "name" | "measures" | "filter" | "dimensions" | "joins">,
  filters: (string | undefined)[],
  measures: MeasureSpec[],
  shapes: Pick<MetricSpec, "dimensions" | "joins">[],
): MetricSpec[] {
  const out: MetricSpec[] = [];
  filters.forEach((filter, f) => {
    measures.forEach((measure, m) => {
      const shape = shapes[(f + m) % shapes.length] ?? {};
      out.push({ name: `${prefix}_${measure.alias}_f${f}`, table, ...base, ...(filter ? { filter } : {}), measures: [measure], ...shape });
    });
  });
  return out;
}

export function shopMetrics(db: string): Record<string, MetricSpec[]> {
  const t = (table: string) => `${db}.${table}`;
  const customersJoin: JoinSpec = { table: t("customers"), on: { column: "customer_id", references: "id" } };
  const productsJoin: JoinSpec = { table: t("products"), on: { column: "product_id", references: "id" } };
  const ordersJoin: JoinSpec = { table: t("orders"), on: { column: "order_id", references: "id" } };

  const orders = family(
    "orders",
    t("orders"),
    { timestamp: "created_at", freshness: "1d" },
    [undefined, "status = 'completed'", "channel = 'web'"],
    [sum("amount"), avg("amount"), max("amount"), sum("discount"), sum("quantity"), sum("shipping_cost"), rows, distinct("customer_id")],
    [
      { dimensions: [{ name: "channel", column: "channel" }] },
      { dimensions: [{ name: "status", column: "status" }] },
      { dimensions: [{ name: "segment", column: "segment", table: t("customers") }], joins: [customersJoin] },
      { dimensions: [{ name: "category", column: "category", table: t("products") }], joins: [productsJoin] },
      {
        dimensions: [
          { name: "country", column: "country", table: t("customers") },
          { name: "channel", column: "channel" },
        ],
        joins: [customersJoin],
      },
    ],
  );
  const customers = family(
    "customers",
    t("customers"),
    { timestamp: "signed_up_at" },
    [undefined, "segment = 'enterprise'"],
    [rows, sum("lifetime_value"), avg("lifetime_value"), distinct("id")],
    [{ dimensions: [{ name: "country", column: "country" }] }, { dimensions: [{ name: "segment", column: "segment" }] }],
  );
  const products = family(
    "products",
    t("products"),
    {},
    [undefined],
    [rows, avg("price"), min("price"), max("unit_cost"), distinct("brand")],
    [{ dimensions: [{ name: "category", column: "category" }] }, { dimensions: [{ name: "brand", column: "brand" }] }],
  );
  const refunds = family(
    "refunds",
    t("refunds"),
    { timestamp: "created_at", freshness: "6h" },
    [undefined, "reason = 'damaged'"],
    [sum("amount"), rows, avg("amount"), max("amount")],
    [
      { dimensions: [{ name: "reason", column: "reason" }] },
      { dimensions: [{ name: "channel", column: "channel", table: t("orders") }], joins: [ordersJoin] },
    ],
  );
  const sessions = family(
    "sessions",
    t("sessions"),
    { timestamp: "started_at", freshness: "1h" },
    [undefined, "device = 'mobile'"],
    [rows, distinct("customer_id"), sum("page_views"), avg("duration_seconds")],
    [
      { dimensions: [{ name: "device", column: "device" }] },
      { dimensions: [{ name: "segment", column: "segment", table: t("customers") }], joins: [customersJoin] },
    ],
  );
  const inventory = family(
    "inventory",
    t("inventory"),
    { timestamp: "snapshot_at", freshness: "1d" },
    [undefined],
    [sum("quantity"), rows, min("quantity")],
    [
      { dimensions: [{ name: "warehouse", column: "warehouse" }] },
      { dimensions: [{ name: "category", column: "category", table: t("products") }], joins: [productsJoin] },
    ],
  );
  const derived: MetricSpec[] = [
    { name: "revenue_per_order", kind: "derived", inputs: ["orders_total_amount_f1", "orders_rows_f1"] },
    { name: "refund_rate", kind: "derived", inputs: ["refunds_total_amount_f0", "orders_total_amount_f1"] },
    { name: "sessions_per_customer", kind: "derived", inputs: ["sessions_rows_f0", "customers_rows_f0"] },
    { name: "stock_cover", kind: "derived", inputs: ["inventory_total_quantity_f0", "orders_total_quantity_f0"] },
  ];
  return {
    "orders.yaml": orders,
    "customers.yaml": customers,
    "products.yaml": products,
    "refunds.yaml": refunds,
    "sessions.yaml": sessions,
    "inventory.yaml": inventory,
    "derived.yaml": derived,
  };
}

/** Writes one YAML file per entry; returns the number of metrics written. */
export async function writeCatalog(dir: string, files: Record<string, MetricSpec[]>): Promise<number> {
  await mkdir(dir, { recursive: true });
  let count = 0;
  for (const [file, metrics] of Object.entries(files)) {
    await writeFile(path.join(dir, file), stringify({ metrics }), "utf8");
    count += metrics.length;
  }
  return count;
}
