// A segmented check's verdicts packed into one byte array: unpacked exactly, walked without a
// copy (packedSegments, verdictBuckets), and encoded for the store straight from the packed bytes
// into the same text as its unpacked series would give.
import { describe, expect, it } from "vitest";
import {
  ANOMALOUS,
  verdictBuckets,
  packedColumns,
  packedSegments,
  segmentedVerdicts,
  seriesOf,
  type SeriesVerdicts,
} from "../../src/evaluate/series-verdicts.js";
import { encodeVerdicts } from "../../src/store/anomaly-verdicts.js";

function series(values: number[], segment: SeriesVerdicts["segment"], excluded: Map<number, string> | null = null): SeriesVerdicts {
  const columns = packedColumns(values.length);
  values.forEach((v, i) => {
    columns.value[i] = v;
    columns.expected[i] = i === 0 ? NaN : v + 0.25;
    columns.lower[i] = v - 1;
    columns.upper[i] = v + 1.5;
    columns.flags[i] = i === values.length - 1 ? ANOMALOUS : 0;
  });
  return { check_key: "k", start: Date.UTC(2026, 10, 1), step: 3_600_000, ...columns, excluded, segment };
}

describe("packed segments", () => {
  const parts = [
    series([5, 6, 0], { dimension: "country", value: "DE", other: false }, new Map([[1, "holiday: Christmas Day"]])),
    series([1, NaN], { dimension: "country", value: null, other: false }),
    series([7, 8, 9, 10], { dimension: "country", value: null, other: true }),
  ];
  const packed = segmentedVerdicts("k", parts);

  it("unpacks every series exactly, NaN and exclusions included", () => {
    expect(seriesOf(packed)).toEqual(parts);
  });

  it("walks the headers without unpacking, and counts every segment's buckets", () => {
    const headers = [...packedSegments(packed.packed_segments!)];
    expect(headers.map((h) => [h.n, h.segment?.value ?? null, h.excluded])).toEqual([
      [3, "DE", [[1, "holiday: Christmas Day"]]],
      [2, null, null],
      [4, null, null],
    ]);
    expect(verdictBuckets(packed)).toBe(9);
    expect(verdictBuckets(parts[0]!)).toBe(3);
  });

  it("encodes for the store from the packed bytes as from the unpacked series", () => {
    const fromPacked = JSON.parse(encodeVerdicts(packed)) as { p: unknown[] };
    expect(fromPacked.p).toEqual(parts.map((p) => JSON.parse(encodeVerdicts(p))));
  });
});
