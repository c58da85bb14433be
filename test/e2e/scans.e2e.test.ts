// The two REST POSTs of the real daemon: POST /v1/semantic-tests/run (runs every test through
// the scan service, so reliability follows) and POST /v1/reliability/scan (202 running,
// coalescing, ?wait=true), and each failing test's sample_sql on the same warehouse.
import { expect, it } from "vitest";
import { RW_KEY, describeCombinations, useDaemon } from "./daemon-harness.js";
import {
  EXPECTED_PROBLEMS,
  EXPECTED_RUN_SUMMARY,
  EXPECTED_STATUS,
  METRICS,
  SCAN_FIELDS,
  expectIso,
  expectProblem,
  expectTestResult,
  expectUuid,
  promSample,
} from "./expected.js";

describeCombinations("REST scans", (combination) => {
  const session = useDaemon(combination);
  const post = (path: string, key = RW_KEY) => session().d.request("POST", path, { key });
  let startup: { checked_at: string; scan_id: string };

  it("POST /v1/semantic-tests/run runs every inferred test against the warehouse", async () => {
    const { d } = session();
    startup = await d.get("/v1/reliability/status/gross_revenue");
    const listing = await d.get("/v1/validation/tests");
    const res = await post("/v1/semantic-tests/run");
    expect(res.status).toBe(200);
    const run = res.body;
    expect(Object.keys(run).sort()).toEqual(["ran_at", "summary", "tests"]);
    expect(run.summary).toEqual(EXPECTED_RUN_SUMMARY);
    expectIso(run.ran_at);
    expect(Date.parse(run.ran_at)).toBeGreaterThan(Date.parse(startup.checked_at));
    // One result per listed test, in the same order.
    const id = (t: { metric: string; rule: string; name: string }) => `${t.metric}|${t.rule}|${t.name}`;
    expect(run.tests.map(id)).toEqual(listing.tests.map(id));
    for (const t of run.tests) expectTestResult(t);
    const counts = { total: run.tests.length, passing: 0, failing: 0, warning: 0 };
    for (const t of run.tests) counts[t.status as "passing"] += 1;
    expect(run.summary).toEqual(counts);
    const problems = run.tests.filter((t: { status: string }) => t.status !== "passing");
    expect(problems).toHaveLength(EXPECTED_PROBLEMS.length);
    EXPECTED_PROBLEMS.forEach((p, i) => expectProblem(problems[i], p));
  });

  it("the run updates reliability: same statuses, checked by the run's scan, since unchanged", async () => {
    const { d } = session();
    const view = await d.get("/v1/reliability/status/gross_revenue");
    expect(view.scan_id).not.toBe(startup.scan_id);
    const scan = await d.get(`/v1/reliability/scans/${view.scan_id}`);
    expect(scan).toMatchObject({ trigger: "api_run", status: "succeeded", summary: EXPECTED_RUN_SUMMARY, error: null });
    const listing = await d.get("/v1/reliability/status");
    for (const m of listing.metrics) {
      expect(m).toEqual({
        metric_name: m.metric_name,
        status: EXPECTED_STATUS[m.metric_name],
        safe_to_use: m.safe_to_use,
        checked_at: scan.finished_at,
        since: startup.checked_at,
      });
    }
    expect(view.history).toEqual([{ status: "unreliable", from: startup.checked_at, to: null }]);
  });

  it("each failing or warning test's sample_sql selects violating rows from the same warehouse", async () => {
    const { d, warehouse } = session();
    for (const name of METRICS) {
      for (const t of (await d.get(`/v1/reliability/status/${name}`)).failing_tests) {
        // A test that could not run reads a missing column; a schema test's sample lists the
        // columns that do exist (the missing one has no row to show).
        if (t.message.startsWith("not evaluated: ") || t.rule === "columns_exist") continue;
        const rows = await warehouse.query(t.sample_sql, { queryId: `e2e-sample-${name}` });
        // A series that dropped to 0 rows (the demo's segment outage: BE's orders stopped) has no
        // row of its flagged bucket to show: its sample runs and finds that bucket empty.
        if (t.rule.endsWith("_anomaly") && /: \d{4}-\d{2}-\d{2} (had 0 rows|was 0), expected /.test(t.message)) {
          expect(rows, `${name} ${t.rule}: ${t.sample_sql}`).toEqual([]);
          continue;
        }
        expect(rows.length, `${name} ${t.rule}: ${t.sample_sql}`).toBeGreaterThan(0);
        expect(rows.length).toBeLessThanOrEqual(10);
        // Anomaly rules count buckets: their sample is the flagged bucket's rows.
        if (t.rule !== "freshness" && t.rule !== "join_key_unique" && !t.rule.endsWith("_anomaly"))
          expect(rows).toHaveLength(Math.min(t.rows_affected, 10));
      }
    }
    const [dup] = await warehouse.query(
      "SELECT * FROM `shop`.`customers` WHERE `id` IN (SELECT `id` FROM `shop`.`customers` GROUP BY `id` HAVING count() > 1) ORDER BY `id` LIMIT 10",
      { queryId: "e2e-dup" },
    );
    expect(dup).toMatchObject({ id: 7 });
  });

  it("POST /v1/reliability/scan: 202 running; triggers during the scan join it (coalesced); ?wait=true answers the result", async () => {
    const { d } = session();
    const [a, b, c, waited] = await Promise.all([
      post("/v1/reliability/scan"),
      post("/v1/reliability/scan"),
      post("/v1/reliability/scan?wait=false"),
      post("/v1/reliability/scan?wait=true"),
    ]);
    const scanId = a.body.scan_id;
    expectUuid(scanId);
    for (const res of [a, b, c, waited]) expect(res.body.scan_id).toBe(scanId);
    // Exactly one request started the scan; the others joined it.
    expect([a, b, c, waited].filter((r) => r.body.coalesced === false)).toHaveLength(1);
    for (const res of [a, b, c]) {
      expect(res.status).toBe(202);
      expect(Object.keys(res.body).sort()).toEqual([...SCAN_FIELDS, "coalesced"].sort());
      expect(res.body).toMatchObject({ status: "running", trigger: "manual", finished_at: null, error: null, summary: null });
      expectIso(res.body.started_at);
      expect(typeof res.body.coalesced).toBe("boolean");
    }
    expect(waited.status).toBe(200);
    expect(waited.body).toMatchObject({
      status: "succeeded",
      trigger: "manual",
      started_at: a.body.started_at,
      error: null,
      summary: EXPECTED_RUN_SUMMARY,
    });
    expectIso(waited.body.finished_at);

    const { coalesced: _coalesced, ...scan } = waited.body;
    expect(await d.get(`/v1/reliability/scans/${scanId}`)).toEqual(scan);
    expect(await d.get(`/v1/reliability/scans/${scanId.toUpperCase()}`)).toEqual(scan);
    expect((await d.get("/v1/reliability/status/order_count")).checked_at).toBe(scan.finished_at);
  });

  it("POST /v1/reliability/scan?wait=true with no scan running starts and finishes a new one", async () => {
    const res = await post("/v1/reliability/scan?wait=true");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "succeeded", trigger: "manual", coalesced: false, summary: EXPECTED_RUN_SUMMARY });
    expect(await post("/v1/reliability/scan?wait=maybe")).toMatchObject({
      status: 400,
      body: { error: { code: "bad_request", message: expect.stringContaining('"wait"') } },
    });
  });

  it("the store holds every scan exactly once, none left running", async () => {
    const { backend, d } = session();
    const text = (await d.request("GET", "/metrics")).text;
    expect(promSample(text, "metric_reliability_scans_total", { trigger: "startup", outcome: "succeeded" })).toBe(1);
    expect(promSample(text, "metric_reliability_scans_total", { trigger: "api_run", outcome: "succeeded" })).toBe(1);
    expect(promSample(text, "metric_reliability_scans_total", { trigger: "manual", outcome: "succeeded" })).toBe(2);
    expect(promSample(text, "metric_reliability_scan_duration_seconds_count")).toBe(4);
    if (!backend.storeQuery) return; // PGlite: the restart suite checks that no scan is left running
    const rows = await backend.storeQuery<{ trigger: string; status: string; n: number }>(
      "SELECT trigger, status, count(*)::int AS n FROM scans GROUP BY trigger, status ORDER BY trigger, status",
    );
    expect(rows).toEqual([
      { trigger: "api_run", status: "succeeded", n: 1 },
      { trigger: "manual", status: "succeeded", n: 2 },
      { trigger: "startup", status: "succeeded", n: 1 },
    ]);
  });

  it("logged no warning or error", () => {
    expect(session().d.logs).toEqual([]);
  });
});
