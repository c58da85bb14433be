// The peer baseline: Elementary's default test, a z-score against the previous 14 days of buckets.

/**
 * Flags bucket i when |x_i - mean| > 3 × sd, mean and sample sd over the `window` buckets before it
 * (14 days), nothing excluded from training, no seasonality. A bucket with fewer than `window`
 * finite buckets before it, or sd = 0, is not flagged. O(n) with running sums.
 */
export function zScoreFlags(values: readonly number[], window: number, threshold = 3): Uint8Array {
  const n = values.length;
  const flags = new Uint8Array(n);
  let sum = 0;
  let sumSquares = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (i - window - 1 >= 0) {
      const old = values[i - window - 1]!;
      if (Number.isFinite(old)) {
        sum -= old;
        sumSquares -= old * old;
        count--;
      }
    }
    if (i >= 1) {
      const added = values[i - 1]!;
      if (Number.isFinite(added)) {
        sum += added;
        sumSquares += added * added;
        count++;
      }
    }
    const value = values[i]!;
    if (count < window || !Number.isFinite(value)) continue;
    const mean = sum / count;
    const variance = Math.max(0, (sumSquares - count * mean * mean) / (count - 1));
    const sd = Math.sqrt(variance);
    if (sd > 0 && Math.abs(value - mean) > threshold * sd) flags[i] = 1;
  }
  return flags;
}
