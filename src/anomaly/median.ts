import { medianInPlace } from "./select.js";

/**
 * Median of `values`, the mean of the two middle values when their number is even (as R's
 * `median()` and numpy's `median`). NaN for an empty input; non-finite entries are skipped.
 * @example median([3, 1, 4, 1, 5]) === 3; median([1, 2, 3, 4]) === 2.5
 */
export function median(values: readonly number[]): number {
  const buffer = new Float64Array(values.length);
  let length = 0;
  for (const value of values) if (Number.isFinite(value)) buffer[length++] = value;
  return medianInPlace(buffer, length);
}
