// The incident answers selected from a read-model view: state filter, keyset pages that new
// incidents never shift, the detail with each test's latest result and each metric's status.
import { describe, expect, it } from "vitest";
import type { Incident } from "../../src/incidents/types.js";
import { buildView } from "../../src/read-model/read-model.js";
import { getIncident, listIncidents } from "../../src/services/incidents.js";
import { ir, snapshot, stored } from "./fixtures.js";

const at = (minute: number) => new Date(Date.UTC(2026, 10, 26, 10, minute));
const CHECK = "default|shop.orders||measure_not_null|amount IS NOT NULL";

function incident(n: number, resolved: boolean): Incident {
  return {
    id: `00000000-0000-4000-8000-0000000000${String(n).padStart(2, "0")}`,
    datasource: "default",
    table: n % 2 ? "shop.orders" : "shop.customers",
    opened_at: at(n),
    resolved_at: resolved ? at(n + 30) : null,
    opened_scan_id: `s${n}`,
    resolved_scan_id: resolved ? `r${n}` : null,
    updated_at: at(n),
    tests: [
      {
        check_key: CHECK,
        rule: "measure_not_null",
        name: "amount is not null",
        check: "amount IS NOT NULL",
        column: "amount",
        severity: "HIGH",
        since: at(n),
        until: resolved ? at(n + 30) : null,
      },
      {
        check_key: "gone",
        rule: "freshness",
        name: "fresh",
        check: "fresh",
        column: null,
        severity: "HIGH",
        since: at(n),
        until: at(n + 1),
      },
    ],
    metrics: [
      { metric_name: "gross_revenue", impact: "unreliable", relationship: "direct", since: at(n), until: resolved ? at(n + 30) : null },
      { metric_name: "aov", impact: "degraded", relationship: "derived", since: at(n), until: at(n + 1) },
    ],
  };
}

// Newest opened first, as the store reads them.
const incidents = [5, 4, 3, 2, 1].map((n) => incident(n, n <= 2));
const view = (list: Incident[] = incidents) =>
  buildView(
    snapshot([ir({ name: "gross_revenue" })]),
    {
      scan: null,
      statuses: [stored("gross_revenue", "unreliable")],
      observations: new Map([
        [CHECK, { outcome: "measured", rows_affected: 7, rows_total: 207, message: "7 of 207 rows (3.38%) have NULL amount" }],
      ]),
      history: new Map(),
      incidents: list,
    },
    at(59),
  );

describe("incident listings", () => {
  it("lists every incident newest first, or the open or resolved ones", () => {
    const all = listIncidents(view());
    expect(all.incidents.map((i) => i.opened_at)).toEqual([5, 4, 3, 2, 1].map((n) => at(n).toISOString()));
    expect(all).toMatchObject({ count: 5, next_cursor: null });
    expect(listIncidents(view(), { state: "open" }).incidents.map((i) => i.state)).toEqual(["open", "open", "open"]);
    const resolved = listIncidents(view(), { state: "resolved" });
    expect(resolved.count).toBe(2);
    expect(resolved.incidents[0]).toEqual({
      id: incidents[3]!.id,
      state: "resolved",
      datasource: "default",
      table: "shop.customers",
      opened_at: at(2).toISOString(),
      resolved_at: at(32).toISOString(),
      opened_scan_id: "s2",
      resolved_scan_id: "r2",
      updated_at: at(2).toISOString(),
      failing_tests: 0,
      metrics_unreliable: 1,
      metrics_degraded: 1,
    });
  });

  it("pages with a keyset cursor: an incident opened meanwhile does not shift the next page", () => {
    const first = listIncidents(view(), { limit: 2 });
    expect(first.incidents.map((i) => i.opened_scan_id)).toEqual(["s5", "s4"]);
    expect(first.count).toBe(5);
    const newer = [incident(9, false), ...incidents];
    const second = listIncidents(view(newer), { limit: 2, cursor: first.next_cursor! });
    expect(second.incidents.map((i) => i.opened_scan_id)).toEqual(["s3", "s2"]);
    const last = listIncidents(view(newer), { limit: 2, cursor: second.next_cursor! });
    expect(last.incidents.map((i) => i.opened_scan_id)).toEqual(["s1"]);
    expect(last.next_cursor).toBeNull();
    expect(() => listIncidents(view(), { cursor: "bm9wZQ" })).toThrow(/invalid parameter "cursor"/);
  });
});

describe("one incident", () => {
  it("carries each test's latest result and each metric's current status", () => {
    const detail = getIncident(view(), incidents[0]!.id);
    expect(detail.tests).toEqual([
      {
        rule: "measure_not_null",
        name: "amount is not null",
        check: "amount IS NOT NULL",
        column: "amount",
        severity: "HIGH",
        failing: true,
        since: at(5).toISOString(),
        until: null,
        message: "7 of 207 rows (3.38%) have NULL amount",
        sample_sql: "SELECT * FROM `shop`.`orders` WHERE amount IS NULL LIMIT 10",
      },
      {
        rule: "freshness",
        name: "fresh",
        check: "fresh",
        column: null,
        severity: "HIGH",
        failing: false,
        since: at(5).toISOString(),
        until: at(6).toISOString(),
        message: null,
        sample_sql: null,
      },
    ]);
    expect(detail.metrics).toEqual([
      {
        metric_name: "gross_revenue",
        impact: "unreliable",
        relationship: "direct",
        affected: true,
        since: at(5).toISOString(),
        until: null,
        status: "unreliable",
      },
      {
        metric_name: "aov",
        impact: "degraded",
        relationship: "derived",
        affected: false,
        since: at(5).toISOString(),
        until: at(6).toISOString(),
        status: "unknown",
      },
    ]);
  });

  it("an id the view does not hold is not found", () => {
    expect(() => getIncident(view(), "00000000-0000-4000-8000-000000000099")).toThrow(
      /incident "00000000-0000-4000-8000-000000000099" not found/,
    );
  });
});
