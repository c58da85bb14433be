import { medianInPlace } from "./select.js";

export interface Line {
  slope: number;
  intercept: number;
}

/**
 * Tukey's three-group resistant line (Tukey 1977; R's `line()` in its basic form): points sorted by
 * x are split into thirds, the slope joins the medians of the outer thirds, and the intercept is the
 * median of y - slope·x. A third of the points can be outliers without moving it. Over the first
 * `length` points of `xs` (ascending) and `ys`; `scratch` holds at least `length` entries. Fewer than
 * three points (or outer thirds at the same x) give a flat line through the median; NaN when empty.
 * @example resistantLine([1, ..., 9], [2, 4, ..., 16, 100]) → { slope: 2, intercept: 0 } (the outlier moves neither)
 */
export function resistantLine(xs: ArrayLike<number>, ys: ArrayLike<number>, length: number, scratch: Float64Array): Line {
  if (length <= 0) return { slope: Number.NaN, intercept: Number.NaN };
  const slope = resistantSlope(xs, ys, length, scratch);
  for (let i = 0; i < length; i++) scratch[i] = ys[i]! - slope * xs[i]!;
  return { slope, intercept: medianInPlace(scratch, length) };
}

/** The slope of {@link resistantLine} alone (0 below three points, NaN when empty). */
export function resistantSlope(xs: ArrayLike<number>, ys: ArrayLike<number>, length: number, scratch: Float64Array): number {
  if (length <= 0) return Number.NaN;
  if (length < 3) return 0;
  const third = Math.floor(length / 3);
  const leftX = medianOf(xs, 0, third, scratch);
  const leftY = medianOf(ys, 0, third, scratch);
  const rightX = medianOf(xs, length - third, length, scratch);
  const rightY = medianOf(ys, length - third, length, scratch);
  return rightX > leftX ? (rightY - leftY) / (rightX - leftX) : 0;
}

function medianOf(values: ArrayLike<number>, from: number, to: number, scratch: Float64Array): number {
  for (let i = from; i < to; i++) scratch[i - from] = values[i]!;
  return medianInPlace(scratch, to - from);
}
