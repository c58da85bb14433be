// Flagged anomaly buckets and feedback in the store, on every target (PGlite, and PostgreSQL
// when DATABASE_URL is set): written in the scan's transaction only when new or changed.
import { describe, expect, it } from "vitest";
import type { FlaggedBucket } from "../../src/store/store.js";
import { storeTargets } from "./databases.js";
import { withStore } from "./with-store.js";
import { at, finished, observation, status, test } from "./fixtures.js";

const day = (d: number) => new Date(Date.UTC(2026, 0, d));
const flagged = (start: Date, value: number, extra: Partial<FlaggedBucket> = {}): FlaggedBucket => ({
  check_key: "vol",
  rule: "volume_anomaly",
  measure: "count()",
  start,
  value,
  expected: 100,
  lower: 80,
  upper: 120,
  ...extra,
});

describe.each(storeTargets)("anomaly rows on $name", (target) => {
  const s = withStore(target);
  const tests = [test("orders", "vol", { rule: "volume_anomaly" }), test("orders", "sum", { rule: "metric_value_anomaly" })];

  async function scan(id: string, minute: number, buckets: FlaggedBucket[], judged = ["vol", "sum"]) {
    await s.store.createScan({ scan_id: id, trigger: "manual", started_at: at(minute - 1) });
    s.clock = at(minute);
    return s.store.completeScan({
      ...finished(id, tests, { vol: observation(buckets.length, 2), sum: observation(0, 2) }, [status("orders", "degraded")]),
      anomalies: { flagged: buckets, judged },
    });
  }

  it("writes a flagged bucket once, rewrites it only when its values change, deactivates it when no longer flagged", async () => {
    await scan("s1", 1, [flagged(day(5), 40)]);
    const first = await s.store.anomalyBuckets(["vol", "sum"]);
    expect(first).toEqual([
      {
        ...flagged(day(5), 40),
        active: true,
        first_scan_id: "s1",
        last_scan_id: "s1",
        created_at: at(1),
        updated_at: at(1),
      },
    ]);
    // The same again: nothing written (last_scan_id and updated_at stay).
    await scan("s2", 2, [flagged(day(5), 40)]);
    expect(await s.store.anomalyBuckets(["vol"])).toEqual(first);
    // Late rows moved its value: rewritten; a second bucket flagged.
    await scan("s3", 3, [flagged(day(5), 55), flagged(day(6), 10, { expected: null, lower: null, upper: null })]);
    expect(
      (await s.store.anomalyBuckets(["vol"])).map((b) => [b.start, b.value, b.expected, b.first_scan_id, b.last_scan_id, b.active]),
    ).toEqual([
      [day(5), 55, 100, "s1", "s3", true],
      [day(6), 10, null, "s3", "s3", true],
    ]);
    // A scan that did not score the check (its query failed) leaves its buckets alone...
    await scan("s4", 4, [], ["sum"]);
    expect((await s.store.anomalyBuckets(["vol"])).every((b) => b.active)).toBe(true);
    // ...one that scored it and flags only day 6 deactivates day 5.
    await scan("s5", 5, [flagged(day(6), 10, { expected: null, lower: null, upper: null })]);
    expect((await s.store.anomalyBuckets(["vol"])).map((b) => [b.start, b.active, b.last_scan_id])).toEqual([
      [day(5), false, "s5"],
      [day(6), true, "s3"],
    ]);
  });

  it("keeps feedback per check; marking twice keeps the first; the read model and scans read it", async () => {
    await scan("s1", 1, [flagged(day(5), 40)]);
    s.clock = at(10);
    const mark = { check_key: "vol", start: day(5), metric: "orders", rule: "volume_anomaly", measure: "rows" };
    const created = await s.store.addAnomalyFeedback(mark);
    expect(created).toEqual({ ...mark, expected: true, created_at: at(10) });
    s.clock = at(11);
    expect(await s.store.addAnomalyFeedback({ ...mark, metric: "other" })).toEqual(created);
    expect(await s.store.anomalyFeedback()).toEqual([created]);
    expect((await s.store.readState({ historyLimit: 0 })).feedback).toEqual([created]);
  });

  it("prunes buckets inactive since before the cutoff; active ones and feedback stay", async () => {
    await scan("s1", 1, [flagged(day(5), 40), flagged(day(6), 40)]);
    await s.store.addAnomalyFeedback({ check_key: "vol", start: day(5), metric: "orders", rule: "volume_anomaly", measure: "rows" });
    await scan("s2", 2, [flagged(day(6), 40)]);
    await s.store.prune(at(3));
    expect((await s.store.anomalyBuckets(["vol"])).map((b) => b.start)).toEqual([day(6)]);
    expect(await s.store.anomalyFeedback()).toHaveLength(1);
  });
});
