// Restart durability: reliability answers come from the store, not from process memory. A daemon
// scans, stops; a new daemon on the same store with SCAN_ON_START=false answers the same.
import { afterAll, beforeAll, expect, it } from "vitest";
import { RW_KEY, describeCombinations, launch, waitForStartupScan, type Backend, type RunningDaemon } from "./daemon-harness.js";
import { EXPECTED_RUN_SUMMARY, EXPECTED_STATUS, EXPECTED_SUMMARY, METRICS, maskAges, promSample } from "./expected.js";

interface Captured {
  listing: any;
  byName: Map<string, any>;
  scans: Map<string, any>;
  compiler: any;
}

async function capture(d: RunningDaemon, scanIds: string[]): Promise<Captured> {
  const byName = new Map<string, any>();
  for (const name of METRICS) byName.set(name, await d.get(`/v1/reliability/status/${name}`));
  const scans = new Map<string, any>();
  for (const id of scanIds) scans.set(id, await d.get(`/v1/reliability/scans/${id}`));
  return { listing: await d.get("/v1/reliability/status"), byName, scans, compiler: await d.get("/v1/compiler/ir") };
}

describeCombinations("restart on the same store", (combination) => {
  let backend: Backend | undefined;
  let first: RunningDaemon | undefined;
  let second: RunningDaemon | undefined;
  let before: Captured;
  let scanIds: string[];
  let firstLogs: RunningDaemon["logs"];

  beforeAll(async () => {
    backend = await combination.prepare();
    first = await launch(backend);
    await waitForStartupScan(first);
    const startupId = (await first.get("/v1/reliability/status/order_count")).scan_id;
    const run = await first.request("POST", "/v1/semantic-tests/run", { key: RW_KEY });
    expect(run.status).toBe(200);
    const runId = (await first.get("/v1/reliability/status/order_count")).scan_id;
    // Concurrent triggers: one scan, and (checked after the restart) no scan row left running.
    const triggers = await Promise.all([1, 2, 3].map(() => first!.request("POST", "/v1/reliability/scan", { key: RW_KEY })));
    const manual = await first.request("POST", "/v1/reliability/scan?wait=true", { key: RW_KEY });
    expect(new Set(triggers.map((t) => t.body.scan_id))).toEqual(new Set([manual.body.scan_id]));
    scanIds = [startupId, runId, manual.body.scan_id];
    before = await capture(first, scanIds);
    firstLogs = first.logs;
    await first.stop();
    first = undefined;
    second = await launch(backend, { SCAN_ON_START: "false" });
  });

  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    await backend?.dispose();
  });

  it("the first daemon's statuses are the demo's, checked by its last scan, held since its first", () => {
    expect(before.listing.summary).toEqual(EXPECTED_SUMMARY);
    const [startup, run, manual] = scanIds.map((id) => before.scans.get(id));
    expect([startup.trigger, run.trigger, manual.trigger]).toEqual(["startup", "api_run", "manual"]);
    for (const name of METRICS) {
      const view = before.byName.get(name);
      expect(view).toMatchObject({
        status: EXPECTED_STATUS[name],
        scan_id: manual.scan_id,
        checked_at: manual.finished_at,
        since: startup.finished_at,
      });
      expect(view.history).toEqual([{ status: EXPECTED_STATUS[name], from: startup.finished_at, to: null }]);
    }
    expect(before.byName.get("refund_amount").failing_tests).toHaveLength(2);
    expect(firstLogs).toEqual([]);
  });

  it("GET /v1/reliability/status is unchanged after the restart", async () => {
    expect(await second!.get("/v1/reliability/status")).toEqual(before.listing);
  });

  it("GET /v1/reliability/status/:name is unchanged: failing_tests, history, since, checked_at, scan_id", async () => {
    for (const name of METRICS) expect(await second!.get(`/v1/reliability/status/${name}`), name).toEqual(before.byName.get(name));
  });

  it("GET /v1/reliability/scans/:id still finds every scan of the first daemon; the catalogue is the same", async () => {
    for (const id of scanIds) expect(await second!.get(`/v1/reliability/scans/${id}`)).toEqual(before.scans.get(id));
    const compiler = await second!.get("/v1/compiler/ir");
    expect({ ...compiler, compiled_at: null }).toEqual({ ...before.compiler, compiled_at: null });
  });

  it("the second daemon did not scan, yet /metrics shows the stored statuses and last scan", async () => {
    const text = (await second!.request("GET", "/metrics")).text;
    for (const trigger of ["startup", "manual", "schedule", "api_run"]) {
      for (const outcome of ["succeeded", "failed"])
        expect(promSample(text, "metric_reliability_scans_total", { trigger, outcome })).toBe(0);
    }
    for (const name of METRICS)
      expect(promSample(text, "metric_reliability_status", { metric: name, status: EXPECTED_STATUS[name]! }, ["table"]), name).toBe(1);
    expect(promSample(text, "metric_reliability_tests", { status: "failing" })).toBe(EXPECTED_RUN_SUMMARY.failing);
    const last = before.scans.get(scanIds[2]!).finished_at;
    expect(promSample(text, "metric_reliability_last_successful_scan_timestamp_seconds")).toBe(Date.parse(last) / 1000);
  });

  it("no scan was left running by the first daemon (nothing to mark aborted at start)", async () => {
    // startDaemon warns "marked scans left running by a previous process as aborted" otherwise.
    expect(second!.logs).toEqual([]);
    if (backend!.storeQuery) {
      expect(await backend!.storeQuery("SELECT id FROM scans WHERE status <> 'succeeded'")).toEqual([]);
      expect(await backend!.storeQuery("SELECT count(*)::int AS n FROM scans")).toEqual([{ n: 3 }]);
    }
  });

  it("a scan after the restart continues the same history", async () => {
    const res = await second!.request("POST", "/v1/reliability/scan?wait=true", { key: RW_KEY });
    expect(res.body).toMatchObject({ status: "succeeded", coalesced: false, summary: EXPECTED_RUN_SUMMARY });
    for (const name of METRICS) {
      const view = await second!.get(`/v1/reliability/status/${name}`);
      const old = before.byName.get(name);
      expect(maskAges(view)).toEqual(maskAges({ ...old, scan_id: res.body.scan_id, checked_at: res.body.finished_at }));
    }
  });
});
