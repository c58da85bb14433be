import { describe, expect, it } from "vitest";
import { readSeries } from "../../src/evaluate/series-values.js";
import type { InferredTest } from "../../src/infer/types.js";
import type { SeriesGroup } from "../../src/plan/series-query.js";
import { createSeriesCache, rejudgeGroup } from "../../src/read-model/series-cache.js";
import type { GroupReading } from "../../src/evaluate/series-values.js";

const DAY = 86_400;
const check = { key: "vol" } as InferredTest;
const group = (id: string, buckets = 4): SeriesGroup => ({
  id,
  datasource: "default",
  table: "shop.orders",
  timestamp: "ts",
  kind: "datetime",
  grains: [{ grain: "day", segment: null, buckets, tests: [check] }],
  cadenceTests: [],
  windowSeconds: 11 * DAY,
});

/** A reading of `g` at day 10 (+1h), newest row at day 10: the span is days 6..9. */
function reading(g: SeriesGroup, values = [5, 6, 7, 8]): GroupReading {
  const span = { start: (10 - values.length) * DAY, end: 10 * DAY, step: DAY };
  const rows = values.map((n, i) => ({ b: span.start + i * DAY, total: n }));
  return {
    group: g,
    cadence: { now: 10 * DAY + 3600, rows: 26, newest: 10 * DAY, oldest: 0, gaps: [[1440, 3]] },
    error: null,
    grains: [
      {
        grain: "day",
        series: readSeries(span, [{ outputs: [{ alias: "total", test_key: "vol", part: "value", empty: 0 }], rows }]),
        failed: new Map(),
      },
    ],
  };
}

describe("series cache", () => {
  it("holds the latest scan's readings; a reading of another scan is a miss", () => {
    const cache = createSeriesCache();
    cache.storeScan("s1", new Map([["a", reading(group("a"))]]));
    expect(cache.get("s1", "a")?.group.id).toBe("a");
    expect(cache.get("s2", "a")).toBeUndefined();
    cache.put("s2", reading(group("b")));
    expect(cache.size()).toEqual({ groups: 2, values: 8 });
    cache.storeScan("s3", new Map([["c", reading(group("c"))]]));
    expect(cache.size()).toEqual({ groups: 1, values: 4 });
    expect(cache.latest("c")?.scanId).toBe("s3");
  });

  it("is bounded by values held: the least recently used group goes first", () => {
    const cache = createSeriesCache(10);
    cache.put("s", reading(group("a")));
    cache.put("s", reading(group("b")));
    cache.get("s", "a"); // a is now the most recent
    cache.put("s", reading(group("c")));
    expect([cache.get("s", "a")?.group.id, cache.get("s", "b"), cache.get("s", "c")?.group.id]).toEqual(["a", undefined, "c"]);
    expect(cache.size().values).toBeLessThanOrEqual(10);
    cache.put(
      "s",
      reading(
        group("huge", 40),
        Array.from({ length: 40 }, () => 1),
      ),
    );
    expect(cache.latest("huge")).toBeUndefined();
  });
});

describe("rejudgeGroup (incremental scans)", () => {
  it("judges an unchanged table at a later clock from the held values", () => {
    const g = group("a");
    const before = reading(g);
    // Two days later, nothing loaded: the newest row plus its usual gap (1 day) covers day 10 only.
    const later = rejudgeGroup(before, g, 12 * DAY + 60)!;
    expect(later.cadence!.now).toBe(12 * DAY + 60);
    expect(later.grains[0]!.series!.span).toEqual({ start: 7 * DAY, end: 11 * DAY, step: DAY });
    expect(Array.from(later.grains[0]!.series!.checks.get("vol")!.values)).toEqual([6, 7, 8, 0]);
  });

  it("keeps the reading's judgements only while every span is the same", () => {
    const g = group("a");
    const held = new Map([
      [
        "vol",
        {
          feedback: "",
          observation: { outcome: "measured" as const, rows_affected: 0, rows_total: 1, message: "m" },
          flagged: [],
          judged: true,
        },
      ],
    ]);
    const before = { ...reading(g), held };
    expect(rejudgeGroup(before, g, 10 * DAY + 7200)!.held).toBe(held);
    expect(rejudgeGroup(before, g, 12 * DAY)!.held).toBeUndefined();
  });

  it("reads again when the plan changed", () => {
    const before = reading(group("a"));
    expect(rejudgeGroup(before, group("a", 6), 11 * DAY)).toBeNull();
    expect(
      rejudgeGroup(
        before,
        { ...group("a"), grains: [{ grain: "day", segment: null, buckets: 4, tests: [{ key: "other" } as InferredTest] }] },
        11 * DAY,
      ),
    ).toBeNull();
    expect(rejudgeGroup({ ...before, error: "not evaluated: x", cadence: null }, group("a"), 11 * DAY)).toBeNull();
  });
});
