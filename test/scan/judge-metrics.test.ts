import { describe, expect, it } from "vitest";
import { makeSnapshot } from "../../src/infer/catalog-snapshot.js";
import type { CheckObservation } from "../../src/evaluate/types.js";
import { judgeMetrics, metricsToJudge } from "../../src/scan/judge-metrics.js";
import { ir } from "../services/fixtures.js";
import { at, observation, test } from "../store/fixtures.js";

// m1 reads k1; m2 reads k1 and k2 (HIGH severity); m3 reads k3.
const tests = [
  test("m1", "k1", { table: "db.a" }),
  test("m2", "k1", { table: "db.a" }),
  test("m2", "k2", { table: "db.a", severity: "HIGH" }),
  test("m3", "k3", { table: "db.b", severity: "HIGH" }),
];
const catalogue = () =>
  makeSnapshot({
    metrics: [ir({ name: "m1" }), ir({ name: "m2" }), ir({ name: "m3" })],
    tests,
    errors: [],
    warnings: [],
    compiled_at: at(0),
  });
const observed = (entries: Record<string, CheckObservation>) => new Map(Object.entries(entries));
const clean = () => observed({ k1: observation(0), k2: observation(0), k3: observation(0) });

describe("judgeMetrics", () => {
  it("judges again only the metrics whose checks changed for judging, and agrees with a judgement from scratch", async () => {
    const snapshot = catalogue();
    const first = await judgeMetrics(snapshot, clean(), new Map(), null);
    expect(first.statuses.map((s) => s.status)).toEqual(["healthy", "healthy", "healthy"]);
    expect(first.problems).toEqual([]);

    // k2 now fails; k1 has a new message (not read by judging); k3 is the same object as before
    const now = observed({ k1: { ...observation(0), message: "another message" }, k2: observation(5), k3: first.observations.get("k3")! });
    expect(metricsToJudge(first, snapshot, new Map(), now)).toEqual(new Set(["m2"]));
    const second = await judgeMetrics(snapshot, now, new Map(), first);
    const scratch = await judgeMetrics(snapshot, now, new Map(), null);
    expect(second.statuses).toEqual(scratch.statuses);
    expect(second.summary).toEqual(scratch.summary);
    expect(second.problems).toEqual(scratch.problems);
    expect(second.statuses.map((s) => s.status)).toEqual(["healthy", "unreliable", "healthy"]);
    expect(second.statuses[0]).toBe(first.statuses[0]); // kept, not judged again
    expect(second.summary).toEqual({ total: 4, passing: 3, failing: 1, warning: 0 });
    expect(second.problems.map((p) => [p.table, p.metrics.map((m) => m.metric_name)])).toEqual([["db.a", ["m2"]]]);
  });

  it("keeps everything when nothing judging reads changed", async () => {
    const snapshot = catalogue();
    const first = await judgeMetrics(snapshot, observed({ k1: observation(0), k2: observation(3), k3: observation(0) }), new Map(), null);
    const again = await judgeMetrics(snapshot, observed({ k1: observation(0), k2: observation(3), k3: observation(0) }), new Map(), first);
    expect(metricsToJudge(first, snapshot, new Map(), again.observations)).toEqual(new Set());
    expect(again.problems).toBe(first.problems);
    expect(again.statuses).toEqual(first.statuses);
  });

  it("judges a metric again when one of its checks lost its observation", async () => {
    const snapshot = catalogue();
    const first = await judgeMetrics(snapshot, clean(), new Map(), null);
    const now = observed({ k1: observation(0), k2: observation(0) });
    expect(metricsToJudge(first, snapshot, new Map(), now)).toEqual(new Set(["m3"]));
    const second = await judgeMetrics(snapshot, now, new Map(), first);
    expect(second.statuses).toEqual((await judgeMetrics(snapshot, now, new Map(), null)).statuses);
    expect(second.statuses[2]!.status).toBe("unknown");
  });

  it("judges everything again for another catalogue or other blocked metrics", async () => {
    const first = await judgeMetrics(catalogue(), clean(), new Map(), null);
    expect(metricsToJudge(first, catalogue(), new Map(), clean())).toBeNull();
    expect(metricsToJudge(first, first.snapshot, new Map([["m1", "filter does not parse"]]), clean())).toBeNull();
    const blocked = await judgeMetrics(first.snapshot, clean(), new Map([["m1", "filter does not parse"]]), first);
    expect(blocked.statuses.map((s) => s.status)).toEqual(["unknown", "healthy", "healthy"]);
  });
});
