// The overview's rendered content is kept per view, query, last scan and 10 s; the page around it
// per session. Plain values, no daemon.
import { describe, expect, it } from "vitest";
import type { MetricTableView } from "../../src/services/metric-table.js";
import { createOverviewRenderer, RENDERED_FOR_MS } from "../../src/web/overview-cache.js";
import type { WebSession } from "../../src/web/session.js";
import type { PageContext } from "../../src/web/views/layout.js";

const table = (as_of: string): MetricTableView => ({
  as_of,
  summary: { total: 1, healthy: 0, degraded: 0, unreliable: 1, unknown: 0 },
  matched: 1,
  page: 1,
  pages: 1,
  rows: [
    {
      metric_name: "gross_revenue",
      status: "unreliable",
      safe_to_use: false,
      checked_at: "2026-01-01T00:00:00.000Z",
      since: "2026-01-01T00:00:00.000Z",
      kind: "structured",
      failing_tests: 1,
      warning_tests: 0,
      tables: ["shop.orders"],
      inputs: [],
    },
  ],
});
const session = (token: string, access: WebSession["access"] = "write"): WebSession => ({
  sid: token,
  access,
  csrfToken: token.repeat(64),
  kid: "k",
  expiresAt: 0,
});
const context = (ms: number, s: WebSession | null): PageContext => ({ now: new Date(ms), path: "/", session: s, health: null });
const state = { status: undefined, q: undefined, sort: "status" as const, dir: "asc" as const, page: 1 };
const T0 = Date.UTC(2026, 0, 1, 0, 5);

describe("overview renderer", () => {
  it("keeps a session's page for the same view, query and 10 seconds", () => {
    const render = createOverviewRenderer();
    const a = render(context(T0, session("a")), table("v1"), state);
    expect(render(context(T0 + 1, session("a")), table("v1"), state)).toBe(a);
    expect(render(context(T0 + RENDERED_FOR_MS, session("a")), table("v1"), state)).not.toBe(a);
    expect(render(context(T0, session("a")), table("v2"), state)).not.toBe(a);
    expect(render(context(T0, session("a")), table("v1"), { ...state, status: "unreliable" })).not.toBe(a);
  });

  it("never gives one session's token or write button to another", () => {
    const render = createOverviewRenderer();
    const a = render(context(T0, session("a")), table("v1"), state).toString("utf8");
    const b = render(context(T0, session("b", "read")), table("v1"), state).toString("utf8");
    expect(a).toContain(`value="${"a".repeat(64)}"`);
    expect(a).toContain('action="/scan"');
    expect(b).toContain(`value="${"b".repeat(64)}"`);
    expect(b).not.toContain("a".repeat(64));
    expect(b).not.toContain('action="/scan"');
    // the shared content is the same in both
    expect(a).toContain('<th scope="row"><a href="/metric/gross_revenue">gross_revenue</a></th>');
    expect(b).toContain('<th scope="row"><a href="/metric/gross_revenue">gross_revenue</a></th>');
  });

  it("does not keep a page that carries a scan notice", () => {
    const render = createOverviewRenderer();
    const notice = {
      scan_id: "s1",
      status: "running" as const,
      trigger: "manual" as const,
      started_at: new Date(T0).toISOString(),
      finished_at: null,
      error: null,
      summary: null,
    };
    const withNotice = {
      ...context(T0, session("a")),
      health: { statuses_from: null, last_finished: null, running: null, failures_since_success: 0, store_error: null },
      notice,
    };
    const first = render(withNotice, table("v1"), state);
    expect(first.toString("utf8")).toContain('data-scan="s1"');
    expect(render({ ...withNotice, notice: null }, table("v1"), state).toString("utf8")).not.toContain('data-scan="s1"');
  });
});
