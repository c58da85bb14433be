import { describe, expect, it } from "vitest";
import { bucketCount, bucketStarts, readSeries, shiftSeries, valueBlock } from "../../src/evaluate/series-values.js";
import type { SeriesOutput } from "../../src/plan/series-query.js";

const span = { start: 1000, end: 1500, step: 100 };
const outputs: SeriesOutput[] = [
  { alias: "total", test_key: "volume", part: "value", empty: 0 },
  { alias: "c1", test_key: "peak", part: "value", empty: null },
  { alias: "c2", test_key: "peak", part: "count", empty: 0 },
  { alias: "c3", test_key: "mean", part: "value", empty: null },
];
const plain = (values: Float64Array) => Array.from(values, (v) => (Number.isNaN(v) ? null : v));

describe("readSeries", () => {
  const series = readSeries(span, [
    {
      outputs,
      rows: [
        { b: 1000, total: "3", c1: 7, c2: "2", c3: 1.5 },
        // a max over only NULLs: the type's default with no value behind it
        { b: 1200, total: "1", c1: 0, c2: "0", c3: null },
        { b: 1400, total: "2", c1: 9, c2: "1", c3: 4 },
        // outside the span (a bucket the query should not have returned): ignored
        { b: 1500, total: "9", c1: 9, c2: "9", c3: 9 },
      ],
    },
  ]);

  it("dense, oldest first: no rows is 0 for counts, missing for the rest", () => {
    expect(bucketCount(span)).toBe(5);
    expect(bucketStarts(span)).toEqual([1000, 1100, 1200, 1300, 1400]);
    expect(bucketStarts(span, 2)).toEqual([1300, 1400]);
    expect(plain(series.checks.get("volume")!.values)).toEqual([3, 0, 1, 0, 2]);
    expect(plain(series.checks.get("peak")!.values)).toEqual([7, null, null, null, 9]);
    expect(plain(series.checks.get("mean")!.values)).toEqual([1.5, null, null, null, 4]);
    expect(series.checks.has("c2")).toBe(false);
  });

  it("a table younger than the span has no history before its oldest row (nor in its partial first bucket)", () => {
    const young = readSeries(
      span,
      [
        {
          outputs: [outputs[0]!],
          rows: [
            { b: 1200, total: "1" },
            { b: 1300, total: "4" },
          ],
        },
      ],
      1250,
    );
    expect(plain(young.checks.get("volume")!.values)).toEqual([null, null, null, 4, 0]);
    const aligned = readSeries(span, [{ outputs: [outputs[0]!], rows: [{ b: 1200, total: "1" }] }], 1200);
    expect(plain(aligned.checks.get("volume")!.values)).toEqual([null, null, 1, 0, 0]);
    const older = readSeries(span, [{ outputs: [outputs[0]!], rows: [{ b: 1200, total: "1" }] }], 400);
    expect(plain(older.checks.get("volume")!.values)).toEqual([0, 0, 1, 0, 0]);
  });

  it("shifts to a later span without re-reading: new buckets hold no rows", () => {
    const later = shiftSeries(series, { start: 1200, end: 1700, step: 100 });
    expect(plain(later.checks.get("volume")!.values)).toEqual([1, 0, 2, 0, 0]);
    expect(plain(later.checks.get("peak")!.values)).toEqual([null, null, 9, null, null]);
    expect(() => shiftSeries(series, { start: 0, end: 3600, step: 3600 })).toThrow(/step/);
  });

  it("merges the parts of a split query", () => {
    const merged = readSeries(span, [
      { outputs: [outputs[0]!], rows: [{ b: 1100, total: "4" }] },
      { outputs: [outputs[3]!], rows: [{ b: 1100, total: "4", c3: 2 }] },
    ]);
    expect(plain(merged.checks.get("volume")!.values)).toEqual([0, 4, 0, 0, 0]);
    expect(plain(merged.checks.get("mean")!.values)).toEqual([null, 2, null, null, null]);
  });
});

describe("valueBlock", () => {
  it("hands out independent, filled views on one buffer, and refuses one series more than asked for", () => {
    const take = valueBlock(2, 3);
    const a = take(0);
    const b = take(Number.NaN);
    a[2] = 5;
    expect(plain(a)).toEqual([0, 0, 5]);
    expect(plain(b)).toEqual([null, null, null]);
    expect(a.buffer).toBe(b.buffer);
    expect(() => take(0)).toThrow(/more than 2 series/);
  });

  it("holds a grain's series in one buffer, read and shifted (counts are not kept)", () => {
    const series = readSeries(span, [{ outputs, rows: [{ b: 1000, total: "3", c1: 7, c2: "2", c3: 1.5 }] }]);
    const buffers = new Set([...series.checks.values()].map((c) => c.values.buffer));
    expect(buffers.size).toBe(1);
    expect([...buffers][0]!.byteLength).toBe(3 * 5 * 8);
    const shifted = shiftSeries(series, { start: 1100, end: 1600, step: 100 });
    expect(new Set([...shifted.checks.values()].map((c) => c.values.buffer)).size).toBe(1);
    expect(plain(shifted.checks.get("volume")!.values)).toEqual([0, 0, 0, 0, 0]);
    expect(plain(series.checks.get("volume")!.values)).toEqual([3, 0, 0, 0, 0]);
  });
});
