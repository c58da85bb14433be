// The overview's metric table on plain values: one read-model view built by hand.
import { describe, expect, it } from "vitest";
import { buildView, type ReadView } from "../../src/read-model/read-model.js";
import { makeSnapshot } from "../../src/infer/catalog-snapshot.js";
import { createMetricTable, type MetricTableQuery } from "../../src/services/metric-table.js";
import type { StoredMetricStatus } from "../../src/store/store.js";
import { derived, ir, stored } from "./fixtures.js";

const metrics = [
  ir({ name: "zeta_revenue", table: "shop.orders" }),
  ir({
    name: "alpha_orders",
    table: "shop.orders",
    joins: [{ table: "shop.customers", type: "left", left_column: "customer_id", right_column: "id", relationship: "many_to_one" }],
  }),
  ir({ name: "beta_stock", table: "shop.inventory" }),
  ir({ name: "gamma_refunds", table: "shop.refunds" }),
  ir({ name: "never_scanned", table: "shop.sessions" }),
  derived("delta_ratio", ["zeta_revenue", "alpha_orders"]),
];

function statusAt(metric: string, value: StoredMetricStatus["status"], since: string, failing = 0, warning = 0): StoredMetricStatus {
  const s = stored(metric, value);
  return { ...s, since: new Date(since), tests: { total: 5, passing: 5 - failing - warning, failing, warning } };
}

function view(): ReadView {
  const catalog = makeSnapshot({ metrics, tests: [], errors: [], warnings: [], compiled_at: new Date("2026-01-01T00:00:00Z") });
  const statuses = [
    statusAt("zeta_revenue", "unreliable", "2026-01-02T00:00:00Z", 2),
    statusAt("alpha_orders", "unreliable", "2026-01-03T00:00:00Z", 1),
    statusAt("beta_stock", "healthy", "2026-01-01T00:00:00Z"),
    statusAt("gamma_refunds", "degraded", "2026-01-04T00:00:00Z", 0, 3),
    statusAt("delta_ratio", "unreliable", "2026-01-02T00:00:00Z", 3),
  ];
  return buildView(catalog, { scan: null, statuses, observations: new Map(), history: new Map() }, new Date("2026-01-05T00:00:00Z"));
}

const query = (q: Partial<MetricTableQuery> = {}): MetricTableQuery => ({ sort: "status", direction: "asc", page: 1, pageSize: 50, ...q });
const names = (rows: { metric_name: string }[]) => rows.map((r) => r.metric_name);

describe("metric table", () => {
  const table = createMetricTable();
  const v = view();

  it("sorts worst first by default, names breaking ties, and counts every metric by status", () => {
    const answer = table(v, query());
    expect(names(answer.rows)).toEqual(["alpha_orders", "delta_ratio", "zeta_revenue", "never_scanned", "gamma_refunds", "beta_stock"]);
    expect(answer.summary).toEqual({ total: 6, healthy: 1, degraded: 1, unreliable: 3, unknown: 1 });
    expect(answer).toMatchObject({ matched: 6, page: 1, pages: 1 });
  });

  it("reverses the primary order but keeps names A to Z within a tie", () => {
    expect(names(table(v, query({ direction: "desc" })).rows)).toEqual([
      "beta_stock",
      "gamma_refunds",
      "never_scanned",
      "alpha_orders",
      "delta_ratio",
      "zeta_revenue",
    ]);
  });

  it("sorts by name, by since (never-scanned last) and by failing then warning tests", () => {
    expect(names(table(v, query({ sort: "name" })).rows)).toEqual([
      "alpha_orders",
      "beta_stock",
      "delta_ratio",
      "gamma_refunds",
      "never_scanned",
      "zeta_revenue",
    ]);
    expect(names(table(v, query({ sort: "since", direction: "asc" })).rows)).toEqual([
      "beta_stock",
      "delta_ratio",
      "zeta_revenue",
      "alpha_orders",
      "gamma_refunds",
      "never_scanned",
    ]);
    expect(names(table(v, query({ sort: "failing", direction: "desc" })).rows).slice(0, 4)).toEqual([
      "delta_ratio",
      "zeta_revenue",
      "alpha_orders",
      "gamma_refunds",
    ]);
  });

  it("filters by status and by text in metric or table names, case-insensitively", () => {
    const unreliable = table(v, query({ status: "unreliable" }));
    expect(names(unreliable.rows)).toEqual(["alpha_orders", "delta_ratio", "zeta_revenue"]);
    expect(unreliable.matched).toBe(3);
    // The summary stays the whole catalogue's.
    expect(unreliable.summary.total).toBe(6);
    expect(names(table(v, query({ text: "CUSTOMERS" })).rows)).toEqual(["alpha_orders"]);
    expect(names(table(v, query({ text: " shop.orders ", status: "unreliable" })).rows)).toEqual(["alpha_orders", "zeta_revenue"]);
    expect(table(v, query({ text: "nothing like it" }))).toMatchObject({ rows: [], matched: 0, page: 1, pages: 1 });
  });

  it("pages on the server and answers a page past the end with the last one", () => {
    const second = table(v, query({ sort: "name", pageSize: 4, page: 2 }));
    expect(second).toMatchObject({ matched: 6, page: 2, pages: 2 });
    expect(names(second.rows)).toEqual(["never_scanned", "zeta_revenue"]);
    expect(table(v, query({ sort: "name", pageSize: 4, page: 99 })).page).toBe(2);
    const filtered = table(v, query({ status: "unreliable", pageSize: 2, page: 2 }));
    expect(names(filtered.rows)).toEqual(["zeta_revenue"]);
  });

  it("gives the same answer again for the same view and query, and a new one for another view", () => {
    const fresh = createMetricTable();
    const first = fresh(v, query({ status: "unreliable", text: " ORDERS " }));
    expect(names(first.rows)).toEqual(["alpha_orders", "zeta_revenue"]);
    expect(fresh(v, query({ status: "unreliable", text: "orders" }))).toBe(first);
    expect(fresh(v, query({ status: "unreliable", text: "orders", page: 2 }))).not.toBe(first);
    const next = view();
    expect(fresh(next, query({ status: "unreliable", text: "orders" }))).not.toBe(first);
    expect(fresh(next, query({ status: "unreliable", text: "orders" }))).toEqual(first);
  });

  it("gives each row its tables (base first, then joins) and a derived metric its inputs", () => {
    const rows = table(v, query({ sort: "name" })).rows;
    expect(rows.find((r) => r.metric_name === "alpha_orders")).toMatchObject({
      tables: ["shop.orders", "shop.customers"],
      failing_tests: 1,
      warning_tests: 0,
      safe_to_use: false,
    });
    expect(rows.find((r) => r.metric_name === "delta_ratio")).toMatchObject({
      kind: "derived",
      tables: [],
      inputs: ["zeta_revenue", "alpha_orders"],
    });
    expect(rows.find((r) => r.metric_name === "never_scanned")).toMatchObject({
      status: "unknown",
      safe_to_use: false,
      since: null,
      failing_tests: 0,
    });
  });
});
