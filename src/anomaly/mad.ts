import { medianInPlace } from "./select.js";

/** 1 / Φ⁻¹(0.75): makes the MAD a consistent estimate of σ under normal noise (R's `mad()` constant). */
export const MAD_TO_SD = 1.482602218505602;
/** √(π/2): makes the mean absolute deviation a consistent estimate of σ under normal noise. */
export const MEAN_AD_TO_SD = 1.2533141373155001;

/**
 * Median absolute deviation from the median, unscaled (R: `mad(x, constant = 1)`).
 * NaN for an empty input; non-finite entries are skipped.
 * @example medianAbsoluteDeviation([1, 1, 2, 2, 4, 6, 9]) === 1
 */
export function medianAbsoluteDeviation(values: readonly number[]): number {
  const buffer = finiteCopy(values);
  return madInPlace(buffer, buffer.length);
}

/**
 * Robust standard deviation: 1.4826 × MAD (R's `mad()` default). When more than half the values
 * are equal the MAD is 0, and it falls back to 1.2533 × the mean absolute deviation from the
 * median (Iglewicz & Hoaglin's modified z-score); 0 when all values are equal, NaN when empty.
 * @example robustSd([1, 1, 2, 2, 4, 6, 9]) ≈ 1.4826
 */
export function robustSd(values: readonly number[]): number {
  const buffer = finiteCopy(values);
  return robustSdInPlace(buffer, buffer.length);
}

/** {@link robustSd} over the first `length` entries of a scratch buffer (mutated). */
export function robustSdInPlace(buffer: Float64Array, length: number): number {
  if (length <= 0) return Number.NaN;
  const mad = madInPlace(buffer, length);
  if (mad > 0) return MAD_TO_SD * mad;
  // madInPlace left |x - median| in the buffer.
  let sum = 0;
  for (let i = 0; i < length; i++) sum += buffer[i]!;
  return (MEAN_AD_TO_SD * sum) / length;
}

/** MAD over the first `length` entries; leaves the absolute deviations in the buffer. */
function madInPlace(buffer: Float64Array, length: number): number {
  if (length <= 0) return Number.NaN;
  const center = medianInPlace(buffer, length);
  for (let i = 0; i < length; i++) buffer[i] = Math.abs(buffer[i]! - center);
  return medianInPlace(buffer, length);
}

function finiteCopy(values: readonly number[]): Float64Array {
  const buffer = new Float64Array(values.length);
  let length = 0;
  for (const value of values) if (Number.isFinite(value)) buffer[length++] = value;
  return buffer.subarray(0, length);
}
