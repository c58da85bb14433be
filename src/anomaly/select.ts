// In-place selection on scratch buffers, so hot loops find medians and quantiles without allocating.
import { quickselect } from "simple-statistics";

/**
 * Floyd–Rivest selection (simple-statistics' `quickselect`) over the first `length` entries of
 * `buffer`: afterwards `buffer[k]` holds the k-th smallest of them (0-based), smaller or equal
 * values before it. Mutates `buffer`; entries must be finite. Returns NaN when `length` is 0.
 */
export function selectInPlace(buffer: Float64Array, length: number, k: number): number {
  if (length <= 0) return Number.NaN;
  // quickselect reads `right || arr.length - 1`: a right bound of 0 would escape the prefix.
  if (length > 1) quickselect(buffer as unknown as number[], k, 0, length - 1);
  return buffer[k]!;
}

/** Median of the first `length` entries (mean of the two middle ones when even). Mutates `buffer`; NaN when empty. */
export function medianInPlace(buffer: Float64Array, length: number): number {
  if (length <= 0) return Number.NaN;
  const upper = length >> 1;
  const high = selectInPlace(buffer, length, upper);
  if (length % 2 === 1) return high;
  // After selection every entry below `upper` is <= high; the lower middle is their maximum.
  let low = -Infinity;
  for (let i = 0; i < upper; i++) if (buffer[i]! > low) low = buffer[i]!;
  return (low + high) / 2;
}

/**
 * Quantile of the first `length` entries by linear interpolation between order statistics
 * (type 7, as R's `quantile()` default and numpy's "linear"). Mutates `buffer`; NaN when empty.
 */
export function quantileInPlace(buffer: Float64Array, length: number, p: number): number {
  if (length <= 0) return Number.NaN;
  const position = (length - 1) * Math.min(1, Math.max(0, p));
  const lowIndex = Math.floor(position);
  const low = selectInPlace(buffer, length, lowIndex);
  const fraction = position - lowIndex;
  if (fraction === 0) return low;
  // The next order statistic is the minimum of the part above lowIndex.
  let next = Infinity;
  for (let i = lowIndex + 1; i < length; i++) if (buffer[i]! < next) next = buffer[i]!;
  return low + fraction * (next - low);
}
