// A scored series as the anomaly stage returns it, from its buckets: for tests of what is kept of
// one (series-verdicts.ts) and how the store writes it.
import type { BucketVerdict, SeriesVerdict } from "../../src/anomaly/types.js";

export const scoredSeries = (buckets: BucketVerdict[]): SeriesVerdict => ({
  kind: "scored",
  seasonality: "none",
  scored: buckets.filter((b) => b.in_detection && b.expected !== null).length,
  anomalous: buckets.filter((b) => b.anomalous).length,
  level_shift_at: null,
  level_shifts: [],
  buckets,
});
