// Every REST read endpoint of the real daemon after its start-up scan: fields, types and the
// demo's exact values (demo/README.md), plus the open probes and /metrics.
import { expect, it } from "vitest";
import { DEMO_METRICS_DIR, loadConfig } from "../../src/config/config.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import { RW_KEY, baseEnv, describeCombinations, useDaemon } from "./daemon-harness.js";
import {
  DERIVED,
  EXPECTED_PROBLEMS,
  EXPECTED_RUN_SUMMARY,
  EXPECTED_STATUS,
  EXPECTED_SUMMARY,
  INFERRED_TEST_FIELDS,
  METRICS,
  SCAN_FIELDS,
  expectIso,
  expectProblem,
  expectUuid,
  problemsOf,
  promSample,
} from "./expected.js";

const safe = (status: string) => status === "healthy" || status === "degraded";

describeCombinations("REST reads after the start-up scan", (combination) => {
  const session = useDaemon(combination);

  it("listens on the free port startDaemon reports for PORT=0", async () => {
    const { d, backend } = session();
    expect(loadConfig(baseEnv(backend)).PORT).toBe(0);
    expect(Number.isInteger(d.daemon.port) && d.daemon.port > 0 && d.daemon.port < 65536).toBe(true);
    expect(d.daemon.apiKeys).toEqual([RW_KEY]);
    expect(d.base).toBe(`http://127.0.0.1:${d.daemon.port}`);
    expect(await (await fetch(`${d.base}/healthz`)).json()).toEqual({ status: "ok" });
  });

  it("serves /healthz, /readyz and /metrics without a key", async () => {
    const { d } = session();
    expect(await d.request("GET", "/healthz")).toMatchObject({ status: 200, body: { status: "ok" } });
    expect(await d.request("GET", "/readyz")).toMatchObject({ status: 200, body: { status: "ready" } });
    const metrics = await d.request("GET", "/metrics");
    expect(metrics.status).toBe(200);
    expect(metrics.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it("GET /v1/validation/tests lists every inferred test, pending", async () => {
    const { d } = session();
    const listing = await d.get("/v1/validation/tests");
    expect(Object.keys(listing).sort()).toEqual(["count", "tests"]);
    expect(listing.count).toBe(EXPECTED_RUN_SUMMARY.total);
    expect(listing.tests).toHaveLength(listing.count);
    for (const t of listing.tests) {
      expect(Object.keys(t).sort()).toEqual(INFERRED_TEST_FIELDS);
      expect(t.status).toBe("pending");
      expect(METRICS).toContain(t.metric);
      for (const key of ["rule", "name", "check"]) expect(typeof t[key]).toBe("string");
      expect(["HIGH", "MEDIUM"]).toContain(t.severity);
      expect(["high", "medium"]).toContain(t.confidence);
    }
    // Every metric has tests; each planted defect is among them.
    expect(new Set(listing.tests.map((t: { metric: string }) => t.metric))).toEqual(new Set(METRICS));
    for (const p of EXPECTED_PROBLEMS)
      expect(listing.tests).toContainEqual(expect.objectContaining({ metric: p.metric, rule: p.rule, severity: p.severity }));
  });

  it("GET /v1/compiler/ir (= /v1/compiler/status) is the compiled demo catalogue", async () => {
    const { d } = session();
    const ir = await d.get("/v1/compiler/ir");
    expect(await d.get("/v1/compiler/status")).toEqual(ir);
    expect(Object.keys(ir).sort()).toEqual(["compiled_at", "count", "errors", "metrics", "warnings"]);
    expect(ir.count).toBe(METRICS.length);
    expect(ir.errors).toEqual([]);
    expect(ir.warnings).toEqual([]);
    expectIso(ir.compiled_at);
    // Exactly what compiling demo/metrics in this process gives (JSON round trip).
    const compiled = await loadCatalogSnapshot(DEMO_METRICS_DIR);
    expect(ir.metrics).toEqual(JSON.parse(JSON.stringify(compiled.metrics)));
    expect(ir.metrics.map((m: { name: string }) => m.name)).toEqual(METRICS);
  });

  it("GET /v1/compiler/ir/:name returns each metric's IR", async () => {
    const { d } = session();
    const all = (await d.get("/v1/compiler/ir")).metrics;
    for (const name of METRICS) {
      const ir = await d.get(`/v1/compiler/ir/${name}`);
      expect(ir).toEqual(all.find((m: { name: string }) => m.name === name));
      expect(ir.name).toBe(name);
      expect(ir.kind).toBe(DERIVED.has(name) ? "derived" : "structured");
      expect(ir.datasource).toBe("default");
      expect(Array.isArray(ir.joins)).toBe(true);
      for (const m of ir.measures) expect([typeof m.alias, typeof m.function]).toEqual(["string", "string"]);
      for (const dim of ir.dimensions) {
        expect(typeof dim.name).toBe("string");
        expect(dim.source_table === null || /^shop\.[a-z]+$/.test(dim.source_table)).toBe(true);
      }
    }
    expect(await d.get("/v1/compiler/ir/stock_on_hand")).toMatchObject({
      kind: "structured",
      table: "shop.inventory",
      measures: [{ alias: "units", function: "Sum", column: "quantity" }],
      dimensions: [
        { name: "warehouse", source_table: null, column: "warehouse" },
        { name: "category", source_table: "shop.products", column: "category" },
      ],
      joins: [
        {
          table: "shop.products",
          from_table: "shop.inventory",
          type: "left",
          left_column: "product_id",
          right_column: "id",
          relationship: "many_to_one",
        },
      ],
      freshness_seconds: 86_400,
      source: { format: "ours", file: expect.stringMatching(/^metrics\/.+\.yaml$/) },
    });
    expect(await d.get("/v1/compiler/ir/gross_revenue")).toMatchObject({ measures: [{ alias: "revenue", function: "Sum" }], joins: [] });
  });

  it("GET /v1/reliability/status: the demo's expected status for every metric", async () => {
    const { d } = session();
    const listing = await d.get("/v1/reliability/status");
    expect(Object.keys(listing).sort()).toEqual(["metrics", "summary"]);
    expect(listing.summary).toEqual(EXPECTED_SUMMARY);
    expect(listing.metrics.map((m: { metric_name: string }) => m.metric_name)).toEqual(METRICS);
    const counted = { total: listing.metrics.length, healthy: 0, degraded: 0, unreliable: 0, unknown: 0 };
    for (const m of listing.metrics) counted[m.status as keyof typeof counted] += 1;
    expect(listing.summary).toEqual(counted);
    const checked = listing.metrics[0].checked_at;
    for (const m of listing.metrics) {
      expect(Object.keys(m).sort()).toEqual(["checked_at", "metric_name", "safe_to_use", "since", "status"]);
      expect(m.status, m.metric_name).toBe(EXPECTED_STATUS[m.metric_name]);
      expect(m.safe_to_use, m.metric_name).toBe(safe(m.status));
      expectIso(m.checked_at);
      // One scan so far: every status was checked by it and has held since then.
      expect(m.checked_at).toBe(checked);
      expect(m.since).toBe(checked);
    }
  });

  it("GET /v1/reliability/status/:name and /v1/reliability/scans/:id: the start-up scan's view of each metric", async () => {
    const { d } = session();
    const listing = await d.get("/v1/validation/tests");
    const entries = (await d.get("/v1/reliability/status")).metrics;
    const scanId = (await d.get("/v1/reliability/status/order_count")).scan_id;
    expectUuid(scanId);
    const scan = await d.get(`/v1/reliability/scans/${scanId}`);
    expect(Object.keys(scan).sort()).toEqual(SCAN_FIELDS);
    expect(scan).toMatchObject({ scan_id: scanId, status: "succeeded", trigger: "startup", error: null, summary: EXPECTED_RUN_SUMMARY });
    expectIso(scan.started_at);
    expect(Date.parse(scan.finished_at)).toBeGreaterThanOrEqual(Date.parse(scan.started_at));

    for (const name of METRICS) {
      const view = await d.get(`/v1/reliability/status/${name}`);
      const problems = problemsOf(name);
      const total = listing.tests.filter((t: { metric: string }) => t.metric === name).length;
      const failing = problems.filter((p) => p.status === "failing").length;
      const warning = problems.length - failing;
      expect(Object.keys(view).sort()).toEqual([
        "checked_at",
        "failing_tests",
        "history",
        "metric_name",
        "safe_to_use",
        "scan_id",
        "since",
        "status",
        "tests",
      ]);
      expect(view).toMatchObject({ ...entries.find((e: { metric_name: string }) => e.metric_name === name), scan_id: scanId });
      expect(view.status).toBe(EXPECTED_STATUS[name]);
      expect(view.checked_at).toBe(scan.finished_at);
      expect(view.tests).toEqual({ total, passing: total - problems.length, failing, warning });
      expect(view.failing_tests).toHaveLength(problems.length);
      view.failing_tests.forEach((t: Record<string, unknown>, i: number) => expectProblem(t, problems[i]!));
      expect(view.history).toEqual([{ status: EXPECTED_STATUS[name], from: scan.finished_at, to: null }]);
    }
  });

  it("GET /v1/reliability/affected-by/:table: direct, joined and derived dependants", async () => {
    const { d } = session();
    const affected = async (table: string) => {
      const body = await d.get(`/v1/reliability/affected-by/${table}`);
      expect(Object.keys(body).sort()).toEqual(["affected_metrics", "count", "table"]);
      expect(body.table).toBe(table);
      expect(body.count).toBe(body.affected_metrics.length);
      return body.affected_metrics.map((m: { metric_name: string; relationship: string }) => `${m.metric_name}:${m.relationship}`);
    };
    expect(await affected("shop.orders")).toEqual([
      "gross_revenue:base_table",
      "order_count:base_table",
      "orders_by_segment:base_table",
      "units_sold_by_category:base_table",
      "revenue_per_order:derived",
      "refund_amount:join",
      "orders_per_session:derived",
    ]);
    expect(await affected("shop.products")).toEqual([
      "stock_on_hand:join",
      "units_sold_by_category:join",
      "average_product_price:base_table",
    ]);
    expect(await affected("shop.customers")).toEqual(["active_customers:base_table", "orders_by_segment:join"]);
    expect(await affected("shop.sessions")).toEqual([
      "session_count:base_table",
      "page_views:base_table",
      "orders_per_session:derived",
      "identified_visitors:base_table",
      "sessions_by_checkout_step:base_table",
    ]);
    expect(await affected("inventory")).toEqual(["stock_on_hand:base_table"]);
    // A table no metric uses: 200 with an empty list, not 404.
    for (const table of ["shop.nothing", "nothing", "other.orders"]) expect(await affected(table)).toEqual([]);
  });

  it("GET /metrics: state-set gauges, safe_to_use and the start-up scan's counters", async () => {
    const { d } = session();
    const text = (await d.request("GET", "/metrics")).text;
    for (const name of METRICS) {
      for (const status of ["healthy", "degraded", "unreliable", "unknown"]) {
        expect(promSample(text, "metric_reliability_status", { metric: name, status }, ["table"]), `${name} ${status}`).toBe(
          status === EXPECTED_STATUS[name] ? 1 : 0,
        );
      }
      expect(promSample(text, "metric_reliability_safe_to_use", { metric: name }), name).toBe(safe(EXPECTED_STATUS[name]!) ? 1 : 0);
    }
    expect(promSample(text, "metric_reliability_scans_total", { trigger: "startup", outcome: "succeeded" })).toBe(1);
    for (const trigger of ["startup", "manual", "schedule", "api_run"]) {
      expect(promSample(text, "metric_reliability_scans_total", { trigger, outcome: "failed" })).toBe(0);
    }
    for (const [status, n] of Object.entries(EXPECTED_RUN_SUMMARY)) {
      if (status !== "total") expect(promSample(text, "metric_reliability_tests", { status })).toBe(n);
    }
    const scanId = (await d.get("/v1/reliability/status/order_count")).scan_id;
    const finished = Date.parse((await d.get(`/v1/reliability/scans/${scanId}`)).finished_at);
    expect(promSample(text, "metric_reliability_last_successful_scan_timestamp_seconds")).toBe(finished / 1000);
    expect(promSample(text, "metric_reliability_scan_duration_seconds_count")).toBe(1);
  });

  it("logged no warning or error", () => {
    expect(session().d.logs).toEqual([]);
  });
});
