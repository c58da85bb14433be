import { COUNT_EDGE_LIMIT, countLowerEdge, normalTail } from "./count-band.js";
import type { ErrorScale } from "./prediction-scale.js";

export interface BandModel {
  /** Noise proportional to the expected value (fitted on a log scale) or additive. */
  relative: boolean;
  /** Counts: a Poisson part, max(expected, 1), in the variance and a skewed band. */
  poisson: boolean;
  sensitivity: number;
}

export type BucketScore =
  | { kind: "unscored" }
  | { kind: "scored"; expected: number; lower: number; upper: number; deviations: number; side: -1 | 0 | 1; sd: number };

/**
 * The band around `expected` and where `value` falls in it. sd = tail · √(phi·g² + p) (see
 * prediction-scale.ts); band = expected ± sensitivity·sd. For counts the Poisson share w of the
 * variance moves both edges up by w·(k² - 1)/6, the Cornish–Fisher skewness term of the Poisson
 * quantile (μ + z√μ + (z² - 1)/6): with k = 4 and μ = 1 the upper edge is 7.5, as the exact
 * Poisson tail puts it (P(X >= 8) = 1e-5), so sparse counts are not flagged for their usual skew.
 * `deviations` is signed, ±sensitivity at the edges; side is +1 above, -1 below, 0 inside.
 * A non-finite expected value or scale gives { kind: "unscored" }.
 */
export function scoreBucket(value: number, expected: number, scale: ErrorScale, model: BandModel): BucketScore {
  const band = newBand();
  if (!bandInto(band, value, expected, scale, model)) return { kind: "unscored" };
  const { lower, upper, deviations, side, sd } = band;
  return { kind: "scored", expected, lower, upper, deviations, side, sd };
}

/** A reusable result for {@link bandInto}, so the scoring loop allocates nothing per bucket. */
export interface MutableBand {
  lower: number;
  upper: number;
  deviations: number;
  side: -1 | 0 | 1;
  sd: number;
}

export function newBand(): MutableBand {
  return { lower: 0, upper: 0, deviations: 0, side: 0, sd: 0 };
}

/** {@link scoreBucket} into `out`; false (out untouched) when it cannot be scored. */
export function bandInto(out: MutableBand, value: number, expected: number, scale: ErrorScale, model: BandModel): boolean {
  if (!Number.isFinite(expected) || !Number.isFinite(scale.phi) || !Number.isFinite(value)) return false;
  const k = model.sensitivity;
  const g = model.relative ? Math.abs(expected) : 1;
  const poisson = model.poisson ? Math.max(expected, 1) : 0;
  const variance = scale.phi * g * g + poisson;
  // Floor: a series that never moved still gets a band a float rounding cannot cross.
  const sd = Math.max(scale.tail * Math.sqrt(variance), 1e-9 * Math.abs(expected), 1e-12);
  const skew = model.poisson && variance > 0 ? (Math.max(0, k * k - 1) / 6) * (poisson / variance) : 0;
  const upper = expected + k * sd + skew;
  let lower = expected - k * sd;
  if (model.poisson) {
    lower = Math.max(0, Math.min(expected - (k * sd) / 2, lower + skew));
    // Few counts: the edge below from the exact tail (the normal edge never reaches a zero that
    // the count's own distribution makes all but impossible).
    if (poisson < COUNT_EDGE_LIMIT) lower = countLowerEdge(poisson, Math.max(sd * sd, poisson), normalTail(k));
  }
  let deviations: number;
  if (value >= expected) deviations = upper > expected ? (k * (value - expected)) / (upper - expected) : 0;
  else deviations = expected > lower ? (-k * (expected - value)) / (expected - lower) : -k * ((expected - value) / sd);
  out.lower = lower;
  out.upper = upper;
  out.deviations = deviations;
  out.side = value > upper ? 1 : value < lower ? -1 : 0;
  out.sd = sd;
  return true;
}
