// applyScan, the pure part: the state a completed scan leaves in the store, worked out from the
// previous state and what the scan wrote, and every case where the read model must reload instead.
// (That it equals a real reload is test/read-model/apply-scan-equivalence.test.ts.)
import { describe, expect, it } from "vitest";
import { applyScan, type ScanWrite } from "../../src/read-model/apply-scan.js";
import type { ReadState, ScanRecord } from "../../src/store/store.js";
import { at, observation, status } from "../store/fixtures.js";

const record = (id: string, minute: number, extra: Partial<ScanRecord> = {}): ScanRecord => ({
  scan_id: id,
  trigger: "schedule",
  status: "succeeded",
  started_at: at(minute - 1),
  finished_at: at(minute),
  error: null,
  summary: { total: 3, passing: 3, failing: 0, warning: 0 },
  catalog_version: "v1",
  ...extra,
});

const previous: ReadState = {
  scan: record("a", 10),
  statuses: [
    { ...status("steady", "healthy"), checked_at: at(10), since: at(5), scan_id: "a" },
    { ...status("flips", "healthy"), checked_at: at(10), since: at(5), scan_id: "a" },
    { ...status("counts", "degraded"), checked_at: at(10), since: at(5), scan_id: "a" },
    { ...status("gone", "unreliable"), checked_at: at(10), since: at(10), scan_id: "a" },
  ],
  observations: new Map([
    ["k1", observation(0)],
    ["k2", observation(3)],
  ]),
  history: new Map([
    ["steady", [{ status: "healthy" as const, from: at(5), to: null }]],
    [
      "flips",
      [
        { status: "healthy" as const, from: at(5), to: null },
        { status: "degraded" as const, from: at(2), to: at(5) },
      ],
    ],
    ["counts", [{ status: "degraded" as const, from: at(5), to: null }]],
    ["gone", [{ status: "unreliable" as const, from: at(10), to: null }]],
  ]),
};

function write(extra: Partial<ScanWrite> = {}): ScanWrite {
  return {
    scan: { ...record("b", 20), results_written: true, previous_scan_id: "a" },
    statuses: [status("steady", "healthy"), status("flips", "unreliable"), status("counts", "degraded", 2), status("new", "healthy")],
    observations: new Map([
      ["k1", observation(0)],
      ["k2", observation(5)],
      ["k3", observation(1)],
    ]),
    ...extra,
  };
}

function applied(w: ScanWrite, historyLimit = 10): ReadState {
  const result = applyScan(previous, w, historyLimit);
  if ("reload" in result) throw new Error(`expected a delta, got a reload: ${result.reload}`);
  return result.state;
}

const byMetric = (state: ReadState) => new Map(state.statuses.map((s) => [s.metric_name, s]));

describe("applyScan", () => {
  it("rewrites only statuses whose values changed, moving `since` only with the status", () => {
    const statuses = byMetric(applied(write()));
    // untouched row: the store keeps its checked_at and scan_id (buildView dates covered metrics)
    expect(statuses.get("steady")).toBe(previous.statuses[0]);
    expect(statuses.get("flips")).toEqual({ ...status("flips", "unreliable"), checked_at: at(20), since: at(20), scan_id: "b" });
    expect(statuses.get("counts")).toEqual({ ...status("counts", "degraded", 2), checked_at: at(20), since: at(5), scan_id: "b" });
    expect(statuses.get("new")).toEqual({ ...status("new", "healthy"), checked_at: at(20), since: at(20), scan_id: "b" });
    // a metric the scan did not state is left as the store leaves it
    expect(statuses.get("gone")).toBe(previous.statuses[3]);
    expect(statuses.size).toBe(5);
  });

  it("closes the open period of a metric whose status changed and opens one for it and for new metrics", () => {
    const history = applied(write()).history;
    expect(history.get("flips")).toEqual([
      { status: "unreliable", from: at(20), to: null },
      { status: "healthy", from: at(5), to: at(20) },
      { status: "degraded", from: at(2), to: at(5) },
    ]);
    expect(history.get("new")).toEqual([{ status: "healthy", from: at(20), to: null }]);
    expect(history.get("steady")).toBe(previous.history.get("steady"));
    expect(history.get("counts")).toBe(previous.history.get("counts"));
    expect(history.get("gone")).toBe(previous.history.get("gone"));
  });

  it("keeps at most historyLimit periods per metric, and none with a limit of 0", () => {
    expect(applied(write(), 2).history.get("flips")).toEqual([
      { status: "unreliable", from: at(20), to: null },
      { status: "healthy", from: at(5), to: at(20) },
    ]);
    expect(applied(write(), 0).history.size).toBe(0);
  });

  it("drops the periods the store prunes after the scan", () => {
    const history = applied(write({ prunedBefore: at(6) })).history;
    expect(history.get("flips")).toEqual([
      { status: "unreliable", from: at(20), to: null },
      { status: "healthy", from: at(5), to: at(20) },
    ]);
    expect(history.get("steady")).toEqual([{ status: "healthy", from: at(5), to: null }]); // open: kept
  });

  it("holds observations as the store reads them back, and keeps the stored row of a kept result", () => {
    const state = applied(
      write({
        observations: new Map([
          ["k1", { ...observation(9), newest: 1_700_000_000 }],
          ["k2", { outcome: "measured", rows_affected: 2.7, rows_total: Number.NaN, message: "m", sample_sql: "SELECT 1" }],
          ["k3", { outcome: "measured", rows_affected: -0.2, rows_total: 1, message: "x" }],
        ]),
        unchanged: new Set(["k1"]),
      }),
    );
    expect(state.observations.get("k1")).toBe(previous.observations.get("k1"));
    expect(state.observations.get("k2")).toEqual({
      outcome: "measured",
      rows_affected: 2,
      rows_total: 0,
      message: "m",
      sample_sql: "SELECT 1",
    });
    expect(Object.is(state.observations.get("k3")!.rows_affected, 0)).toBe(true);
    // the previous view is not modified
    expect(previous.observations.get("k2")).toEqual(observation(3));
  });

  it("leaves the last state's collections as they were when the scan changed nothing in them", () => {
    const state = applied(
      write({
        statuses: [status("steady", "healthy"), status("flips", "healthy"), status("counts", "degraded"), status("gone", "unreliable")],
        observations: new Map([
          ["k1", { ...observation(0), newest: 1_700_000_000 }], // judged again, the same as held
          ["k2", observation(3)],
        ]),
        unchanged: new Set(["k2"]),
      }),
    );
    expect(state.statuses).toBe(previous.statuses);
    expect(state.history).toBe(previous.history);
    expect(state.observations).toBe(previous.observations);
    // one result that differs copies the results once, and leaves the previous state alone
    const changed = applied(write({ statuses: [], observations: new Map([["k1", observation(4)]]) }));
    expect(changed.observations).not.toBe(previous.observations);
    expect(changed.observations.get("k1")).toEqual(observation(4));
    expect(changed.observations.get("k2")).toBe(previous.observations.get("k2"));
    expect(previous.observations.get("k1")).toEqual(observation(0));
  });

  it("takes the scan as the newest, without completeScan's extra fields", () => {
    expect(applied(write()).scan).toEqual(record("b", 20));
  });

  it.each<[string, Partial<ScanWrite>, RegExp]>([
    ["another scan completed since the view's", { scan: { ...record("b", 20), previous_scan_id: "other" } }, /scan other/],
    ["the store did not say which scan preceded", { scan: record("b", 20) }, /did not say/],
    [
      "a later-started scan had already written",
      { scan: { ...record("b", 20), previous_scan_id: "a", results_written: false } },
      /later-started/,
    ],
    ["the scan did not succeed", { scan: { ...record("b", 20), status: "failed", previous_scan_id: "a" } }, /failed/],
    ["the scan finished no later than the view's", { scan: { ...record("b", 10), previous_scan_id: "a" } }, /did not finish after/],
    ["a metric stated twice", { statuses: [status("new", "healthy"), status("new", "degraded")] }, /twice/],
    ["a kept result the view does not hold", { unchanged: new Set(["k3"]) }, /k3/],
  ])("asks for a reload when %s", (_case, extra, reason) => {
    const result = applyScan(previous, write(extra), 10);
    expect("reload" in result && result.reload).toMatch(reason);
  });

  it("applies a first scan onto the empty state of a store that had none", () => {
    const empty: ReadState = { scan: null, statuses: [], observations: new Map(), history: new Map() };
    const result = applyScan(empty, write({ scan: { ...record("b", 20), previous_scan_id: null } }), 10);
    expect("state" in result && result.state.statuses.map((s) => s.metric_name)).toEqual(["steady", "flips", "counts", "new"]);
    expect(applyScan(empty, write(), 10)).toEqual({ reload: expect.stringMatching(/scan a, the view's of null/) });
  });
});
