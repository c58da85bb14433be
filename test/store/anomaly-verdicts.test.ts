// Anomaly series' verdicts in the store, on every target (PGlite, and PostgreSQL when
// DATABASE_URL is set): they round-trip exactly (missing values, flags, exclusions), a scan
// writes only the series that changed since the scan the replica held, and every one when the
// store's newest scan is another; feedback's re-scored series replaces its row.
import { describe, expect, it } from "vitest";
import { ANOMALOUS, FEEDBACK, segmentedVerdicts, toSeriesVerdicts, type SeriesVerdicts } from "../../src/evaluate/series-verdicts.js";
import { decodeVerdicts, encodeVerdicts } from "../../src/store/anomaly-verdicts.js";
import { scoredSeries } from "../evaluate/scored-series.js";
import type { VerdictsWrite } from "../../src/store/store.js";
import { storeTargets } from "./databases.js";
import { withStore } from "./with-store.js";
import { at, finished, observation, status, test } from "./fixtures.js";

const DAY = 86_400_000;
function verdicts(key: string, values: number[], extra: Partial<SeriesVerdicts> = {}): SeriesVerdicts {
  const n = values.length;
  return {
    check_key: key,
    start: Date.UTC(2026, 0, 1),
    step: DAY,
    value: Float64Array.from(values),
    expected: Float32Array.from(values, (v, i) => (i < 2 ? NaN : v + 0.5)),
    lower: Float32Array.from(values, (v, i) => (i < 2 ? NaN : v - 10)),
    upper: Float32Array.from(values, (v, i) => (i < 2 ? NaN : v + 10.25)),
    flags: Uint8Array.from({ length: n }, (_, i) => (i === n - 1 ? ANOMALOUS : 0)),
    excluded: null,
    ...extra,
  };
}

describe("anomaly verdicts as text", () => {
  const base64 = (column: Float64Array | Uint8Array) => Buffer.from(column.buffer, column.byteOffset, column.byteLength).toString("base64");

  it("keeps the band in single precision and the value exact", () => {
    const bucket = { start: 0, value: 0.1 + 0.2, expected: 1 / 3, lower: Math.PI, upper: 1e12 + 0.5, anomalous: true };
    const scored = toSeriesVerdicts(
      "vol",
      scoredSeries([{ ...bucket, feedback: false, excluded: null, in_detection: true, deviations: 4 }]),
    )!;
    const read = decodeVerdicts("vol", encodeVerdicts(scored));
    expect(read.value[0]).toBe(0.1 + 0.2);
    expect([read.expected[0], read.lower[0], read.upper[0]]).toEqual([Math.fround(1 / 3), Math.fround(Math.PI), Math.fround(1e12 + 0.5)]);
    expect(read).toEqual(scored);
  });

  it("reads a row written when the band was kept as doubles, rounded as a scan now would", () => {
    const legacy = JSON.stringify({
      s: 0,
      d: DAY,
      v: base64(Float64Array.from([5, 6])),
      e: base64(Float64Array.from([NaN, 1 / 3])),
      l: base64(Float64Array.from([NaN, 0.1])),
      u: base64(Float64Array.from([NaN, 2.5])),
      f: base64(Uint8Array.from([0, ANOMALOUS])),
      x: null,
    });
    const read = decodeVerdicts("vol", legacy);
    expect([...read.value]).toEqual([5, 6]);
    expect([...read.expected]).toEqual([NaN, Math.fround(1 / 3)]);
    expect([...read.lower]).toEqual([NaN, Math.fround(0.1)]);
    expect([...read.upper]).toEqual([NaN, 2.5]);
    expect([...read.flags]).toEqual([0, ANOMALOUS]);
  });

  it("refuses a column of the wrong length with a message that says so", () => {
    const text = encodeVerdicts(verdicts("vol", [1, 2, 3]));
    const broken = JSON.stringify({ ...JSON.parse(text), l: base64(Uint8Array.from([1, 2, 3])) });
    expect(() => decodeVerdicts("vol", broken)).toThrow("stored verdicts: a column of 3 bytes, 12 expected");
  });
});

describe.each(storeTargets)("anomaly verdicts on $name", (target) => {
  const s = withStore(target);
  const tests = [test("orders", "vol", { rule: "volume_anomaly" }), test("orders", "sum", { rule: "metric_value_anomaly" })];

  async function scan(id: string, minute: number, write: VerdictsWrite) {
    await s.store.createScan({ scan_id: id, trigger: "manual", started_at: at(minute - 1) });
    s.clock = at(minute);
    return s.store.completeScan({
      ...finished(id, tests, { vol: observation(0, 2), sum: observation(0, 2) }, [status("orders", "healthy")]),
      anomalies: { flagged: [], judged: ["vol", "sum"], verdicts: write },
    });
  }
  // The rows as written (PGlite: another instance on the data directory sees them once the store closed).
  const rows = () =>
    s.inspect<{ scan_id: string; buckets: number }>(`SELECT "scan_id", "buckets" FROM "anomaly_verdicts" ORDER BY "scan_id"`);

  it("round-trips every bucket: missing values, band, flags, exclusions, the warm-up's values", async () => {
    const vol = verdicts("vol", [10, NaN, 12, 0, -3.75, 1e12], {
      flags: Uint8Array.from([0, 0, FEEDBACK, 0, ANOMALOUS, ANOMALOUS | FEEDBACK]),
      excluded: new Map([[3, "holiday"]]),
      warm_up: Float64Array.from([0.1 + 0.2, NaN, 7]),
    });
    // A segmented check (anomalies.segments): one series per segment in its one row.
    const sum = segmentedVerdicts("sum", [
      verdicts("sum", [1.5, 0], { segment: { dimension: "country", value: "BE", other: false } }),
      verdicts("sum", [2, 3], {
        segment: { dimension: "country", value: null, other: false },
        excluded: new Map([[1, "holiday: Christmas Day"]]),
      }),
      verdicts("sum", [4, NaN], { segment: { dimension: "country", value: null, other: true } }),
    ]);
    await scan("s1", 1, {
      all: new Map([
        ["vol", vol],
        ["sum", sum],
      ]),
      changed: ["vol", "sum"],
      removed: [],
      basis: null,
    });
    const read = await s.store.anomalyVerdicts(["vol", "sum", "absent"]);
    expect([...read.keys()].sort()).toEqual(["sum", "vol"]);
    expect(read.get("vol")).toEqual(vol);
    expect(read.get("sum")).toEqual(sum);
    expect(Object.is(read.get("vol")!.value[1], NaN)).toBe(true);
    expect(read.get("vol")!.warm_up![0]).toBe(0.1 + 0.2);
    expect((await rows()).map((r) => r.buckets).sort()).toEqual([6, 6]);
  });

  it("writes series by the hundred: 250 of them, over three statements, each read back as written", async () => {
    const many = Array.from({ length: 250 }, (_, i) => test("orders", `k${i}`, { rule: "volume_anomaly" }));
    const all = new Map(many.map((t, i) => [t.key, verdicts(t.key, [i, i + 0.5, NaN])]));
    await s.store.createScan({ scan_id: "m1", trigger: "manual", started_at: at(0) });
    s.clock = at(1);
    await s.store.completeScan({
      ...finished("m1", many, Object.fromEntries(many.map((t) => [t.key, observation(0, 2)])), [status("orders", "healthy")]),
      anomalies: { flagged: [], judged: [...all.keys()], verdicts: { all, changed: [...all.keys()], removed: [], basis: null } },
    });
    const read = await s.store.anomalyVerdicts([...all.keys()]);
    expect(read.size).toBe(250);
    for (const [key, v] of all) expect(read.get(key)).toEqual(v);
  });

  it("writes only what changed since the basis; everything when the store's newest scan is another", async () => {
    const v1 = verdicts("vol", [10, 11, 12]);
    const s1 = verdicts("sum", [5, 6, 7]);
    await scan("s1", 1, {
      all: new Map([
        ["vol", v1],
        ["sum", s1],
      ]),
      changed: ["vol", "sum"],
      removed: [],
      basis: null,
    });
    // Nothing changed: no row rewritten.
    await scan("s2", 2, {
      all: new Map([
        ["vol", v1],
        ["sum", s1],
      ]),
      changed: [],
      removed: [],
      basis: "s1",
    });
    expect(await rows()).toEqual([
      { scan_id: "s1", buckets: 3 },
      { scan_id: "s1", buckets: 3 },
    ]);
    // A new bucket of one series: that row only.
    const v3 = verdicts("vol", [10, 11, 12, 13]);
    await scan("s3", 3, {
      all: new Map([
        ["vol", v3],
        ["sum", s1],
      ]),
      changed: ["vol"],
      removed: [],
      basis: "s2",
    });
    expect(await rows()).toEqual([
      { scan_id: "s1", buckets: 3 },
      { scan_id: "s3", buckets: 4 },
    ]);
    // A basis the store is not at (another replica scanned): every series sent, same rows left alone,
    // a series the scan did not score removed.
    await scan("s4", 4, { all: new Map([["vol", v3]]), changed: [], removed: [], basis: "s1" });
    expect(await rows()).toEqual([{ scan_id: "s3", buckets: 4 }]);
    expect((await s.store.anomalyVerdicts(["vol", "sum"])).get("vol")).toEqual(v3);
  });

  it("feedback's re-scored series replaces its row; the same again writes nothing", async () => {
    const v1 = verdicts("vol", [10, 11, 12]);
    await scan("s1", 1, { all: new Map([["vol", v1]]), changed: ["vol"], removed: [], basis: null });
    const marked = { ...v1, flags: Uint8Array.from([0, 0, FEEDBACK]) };
    s.clock = at(5);
    await s.store.putAnomalyVerdicts([marked]);
    expect((await s.store.anomalyVerdicts(["vol"])).get("vol")).toEqual(marked);
    expect(await rows()).toEqual([{ scan_id: "feedback", buckets: 3 }]);
    const [before] = await s.inspect<{ updated_at: Date }>(`SELECT "updated_at" FROM "anomaly_verdicts"`);
    s.clock = at(6);
    await s.store.putAnomalyVerdicts([marked]);
    expect(await s.inspect(`SELECT "updated_at" FROM "anomaly_verdicts"`)).toEqual([before]);
  });
});
