// The pure part of freshness_anomaly: what counts as a load, when it landed, and the verdict on
// the time since the last one. The same on real ClickHouse: test/scan/load-arrivals.test.ts.
import { describe, expect, it } from "vitest";
import {
  applyLoadChange,
  isLoad,
  LONG_GAPS_KEPT,
  observeLoads,
  RECENT_LOADS,
  seeLoads,
  type LoadHistory,
  type TableSignal,
} from "../../src/evaluate/load-arrivals.js";
import { inferTests } from "../../src/infer/infer.js";
import { structured, anomalySettings } from "../infer/fixtures.js";

const HOUR = 3600;
const DAY = 24 * HOUR;
const ON = anomalySettings({ training_buckets: 28 });
const ir = structured({ timestamp: "created_at", anomalies: ON, measures: [{ alias: "revenue", function: "Sum", column: "amount" }] });
const freshness = inferTests(ir, [ir]).find((t) => t.rule === "freshness_anomaly")!;

const seen = (newest: number | null, parts: TableSignal["parts"] = null): TableSignal => ({ newest, parts });
const mt = (rows: number, fingerprint: string, modified = 0) => ({ rows, fingerprint, modified });

/** Sightings at the given times (newest row = the time, dense events), from an empty history. */
function play(times: readonly number[], signal: (t: number) => TableSignal = (t) => seen(t)): LoadHistory {
  let history: LoadHistory | undefined;
  for (const t of times) history = seeLoads("s", history, signal(t), t).history;
  return history!;
}

describe("what counts as a load", () => {
  const before = { newest: 1000, rows: 50, parts: "a" };
  it("the newest row moving forward (any engine), or the active parts' rows growing (MergeTree)", () => {
    expect(isLoad({ newest: 1000, rows: null, parts: null }, seen(1001))).toBe(true);
    expect(isLoad({ newest: 1000, rows: null, parts: null }, seen(1000))).toBe(false);
    expect(isLoad({ newest: null, rows: null, parts: null }, seen(5))).toBe(true);
    // Late rows (older event times) and rows with NULL timestamps move no newest row: the parts' rows tell.
    expect(isLoad(before, seen(1000, mt(60, "b")))).toBe(true);
  });
  it("no load: a merge or mutation (parts rewritten, same rows), TTL (fewer rows), future rows sliding into view", () => {
    expect(isLoad(before, seen(1000, mt(50, "merged")))).toBe(false);
    expect(isLoad(before, seen(1000, mt(40, "ttl")))).toBe(false);
    // The clock passes a future-dated row: the newest moves, the parts do not.
    expect(isLoad(before, seen(2000, mt(50, "a")))).toBe(false);
  });
  it("a full refresh (TRUNCATE and INSERT as many, newer rows) is a load", () => {
    expect(isLoad(before, seen(2000, mt(50, "refreshed")))).toBe(true);
  });
});

describe("seeLoads", () => {
  it("the first sight is no load; a change without load is stored, nothing else is", () => {
    const first = seeLoads("s", undefined, seen(900, mt(10, "a", 800)), 1000);
    expect(first.change).toEqual({
      state: { series: "s", first_seen: 1000, newest: 900, rows: 10, parts: "a", loads: 0, last_load: null },
      arrival: null,
    });
    expect(seeLoads("s", first.history, seen(900, mt(10, "a", 800)), 1100)).toEqual({ history: first.history, change: null });
    const merged = seeLoads("s", first.history, seen(900, mt(10, "m", 1050)), 1100);
    expect(merged.change).toMatchObject({ state: { parts: "m", loads: 0 }, arrival: null });
  });

  it("a load lands at the parts' modification time when it lies between the last load and now, else at now", () => {
    let h = seeLoads("s", undefined, seen(900, mt(10, "a", 800)), 1000).history;
    let step = seeLoads("s", h, seen(1150, mt(20, "b", 1150)), 1200);
    expect(step.change!.arrival).toEqual({ at: 1150, gap: null, slack: 0 });
    h = step.history;
    // A server clock ahead of the scan's (or a merge noted later): the scan's clock.
    step = seeLoads("s", h, seen(1300, mt(30, "c", 99_999)), 1400);
    expect(step.change!.arrival).toEqual({ at: 1400, gap: 250, slack: 0 });
    expect(step.history.state).toMatchObject({ loads: 2, last_load: 1400 });
    // Another engine: no parts, the scan's clock.
    expect(seeLoads("s", undefined, seen(5), 10).history.state.first_seen).toBe(10);
  });
});

describe("observeLoads", () => {
  it("learns until 5 loads are seen, however dense the event times; a table loaded once never alarms", () => {
    expect(observeLoads(freshness, undefined).message).toBe("not applicable: learning the load cadence, 0 of 5 loads seen");
    const three = play([0, HOUR, 2 * HOUR, 3 * HOUR]);
    expect(observeLoads(freshness, { history: three, now: 30 * DAY })).toEqual({
      outcome: "not_applicable",
      rows_affected: 0,
      rows_total: 0,
      message: "not applicable: learning the load cadence, 3 of 5 loads seen",
    });
    // Loaded once (one event a second, the newest 10 minutes old when first seen), never again.
    const once = play([0, 600, 6 * HOUR, 40 * DAY], () => seen(-600));
    expect(observeLoads(freshness, { history: once, now: 90 * DAY }).message).toMatch(/0 of 5 loads seen$/);
  });

  it("hourly loads: passing up to 1.5 h after the last, failing after; the message names the load cadence", () => {
    const h = play(Array.from({ length: 7 }, (_, i) => i * HOUR));
    expect(observeLoads(freshness, { history: h, now: 6 * HOUR + 80 * 60 })).toEqual({
      outcome: "measured",
      rows_affected: 0,
      rows_total: 1,
      message: "last load seen 1h 20m ago; loads usually land every 1h, stale after 1h 30m",
    });
    expect(observeLoads(freshness, { history: h, now: 6 * HOUR + 91 * 60 })).toMatchObject({ rows_affected: 1, rows_total: 1 });
  });

  it("knows the nights of a 5-minute loader from the long gaps kept beyond the recent loads", () => {
    // 14 days: loads every 5 minutes from 08:00 to 20:00, none at night.
    let history: LoadHistory | undefined;
    for (let day = 0; day < 14; day++) {
      for (let k = 0; k <= 144; k++) {
        const t = day * DAY + 8 * HOUR + k * 300;
        const step = seeLoads("s", history, seen(t), t);
        history = step.change ? applyLoadChange(history, step.change) : step.history;
      }
    }
    expect(history!.arrivals).toHaveLength(RECENT_LOADS + LONG_GAPS_KEPT);
    const last = history!.state.last_load!;
    expect(observeLoads(freshness, { history: history!, now: last + 11 * HOUR })).toMatchObject({ rows_affected: 0 });
    expect(observeLoads(freshness, { history: history!, now: last + 2 * DAY })).toMatchObject({ rows_affected: 1 });
  });
});

describe("a load's slack: scans that do not divide the loading interval", () => {
  it("a load seen by the next scan may have landed since the one before; a load dated by its parts may not", () => {
    let h = seeLoads("s", undefined, seen(100), 1000, null).history;
    const step = seeLoads("s", h, seen(1100), 1200, 1080);
    expect(step.change!.arrival).toEqual({ at: 1200, gap: null, slack: 120 });
    h = step.history;
    expect(seeLoads("s", h, seen(1500, mt(9, "x", 1490)), 1500, 1380).change!.arrival).toEqual({ at: 1490, gap: 290, slack: 0 });
  });

  it("5-minute loads seen by 2-minute scans read 4 and 6 minutes apart: still a 5-minute cadence, flagged within 12 minutes", () => {
    let history: LoadHistory | undefined;
    let landed = 0;
    let flaggedAt: number | null = null;
    for (let t = 0; t <= 80 * 60; t += 120) {
      // Loads land at 4, 9, 14, ... minutes until minute 50, then stop.
      const newest = Math.min(Math.floor((t / 60 + 1) / 5) * 5 - 1, 49) * 60;
      if (newest > landed) landed = newest;
      const step = seeLoads("s", history, seen(landed), t, t === 0 ? null : t - 120);
      history = step.change ? applyLoadChange(history, step.change) : step.history;
      const verdict = observeLoads(freshness, { history, now: t });
      if (t <= landed + 5 * 60) expect(verdict.rows_affected, `minute ${t / 60}`).toBe(0);
      if (verdict.rows_affected > 0) flaggedAt ??= t;
    }
    expect(history!.arrivals.map((a) => a.gap).filter((g) => g !== null && g !== 240 && g !== 360)).toEqual([]);
    expect(observeLoads(freshness, { history: history!, now: landed + 60 }).message).toMatch(
      /loads usually land every 5m( \d+s)?, stale after 7m( \d+s)?$/,
    );
    expect(flaggedAt! - landed).toBeLessThanOrEqual(2 * 300 + 120);
  });
});

describe("applyLoadChange", () => {
  it("bounds the history as the store does: the newest loads, and the older ones after the longest gaps", () => {
    let history: LoadHistory | undefined;
    // Every minute, with a longer pause before every 50th load.
    const times: number[] = [];
    for (let i = 0, t = 0; i < 400; i++) times.push((t += i % 50 === 0 ? 3600 + i : 60));
    for (const t of times) {
      const step = seeLoads("s", history, seen(t), t);
      history = step.change ? applyLoadChange(history, step.change) : step.history;
    }
    const arrivals = history!.arrivals;
    expect(arrivals).toHaveLength(RECENT_LOADS + LONG_GAPS_KEPT);
    expect(arrivals.map((a) => a.at)).toEqual([...arrivals.map((a) => a.at)].sort((a, b) => a - b));
    expect(arrivals.slice(-RECENT_LOADS).at(0)!.at).toBe(times[times.length - RECENT_LOADS]);
  });
});
