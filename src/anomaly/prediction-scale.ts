// How wide the band is: the spread of past one-step prediction errors, in the original units.
import { MEAN_AD_TO_SD } from "./mad.js";
import { medianInPlace, quantileInPlace } from "./select.js";

/** Median of a chi-square with one degree of freedom: median(e²) = this × σ² for normal errors. */
const CHI2_1_MEDIAN = 0.454936423119572;
/**
 * Φ⁻¹((1 + p) / 2): the p quantile of |z| for standard normal z (Acklam's rational approximation
 * of the normal quantile, relative error < 1.2e-9 in its central region, which p in [0.5, 0.98] uses).
 */
export function normalAbsQuantile(p: number): number {
  const q = (1 + p) / 2 - 0.5;
  const r = q * q;
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

/**
 * Error variance model: Var(e) = phi · g² + p, with g = the expected value (relative noise) or 1
 * (additive noise), and p = the Poisson variance max(expected, 1) for counts, else 0.
 * `tail` (>= 1) widens the band when the standardized errors have heavier tails than normal.
 */
export interface ErrorScale {
  phi: number;
  tail: number;
}

export interface ErrorSample {
  /** Prediction errors (observed - expected), original units. */
  error: Float64Array;
  /** g² of each error's bucket. */
  g2: Float64Array;
  /** Poisson variance of each error's bucket (0 for values). */
  poisson: Float64Array;
  length: number;
}

/**
 * phi solves median(e² / (phi·g² + p)) = median of χ²(1), so that under normal errors the
 * standardized errors have unit variance: with p = 0 this is (1.4826 × median |e/g|)², the MAD
 * estimate without centring (a biased baseline widens the band instead of being ignored). With a
 * Poisson part it is found by fixed-point steps on the median ratio (three from scratch, one from
 * `previous`, the last refit's scale, since consecutive windows overlap). When more than half of
 * the errors are 0 it falls back to the mean absolute error (Iglewicz & Hoaglin). `tail` is
 * max(1, q_p(|z|) / Φ⁻¹((1 + p) / 2)) at the farthest quantile p in [0.5, 0.98] that leaves ten
 * errors beyond it: further out than the MAD, so heavy-tailed noise widens the band, and the
 * tail of an hourly window (336 errors) is read at its 97th percentile.
 * An empty sample gives { phi: NaN, tail: 1 }. `scratch` holds at least `length` entries.
 */
export function errorScale(sample: ErrorSample, scratch: Float64Array, previous?: ErrorScale): ErrorScale {
  const { error, g2, poisson, length } = sample;
  if (length === 0) return { phi: Number.NaN, tail: 1 };
  let poissonSum = 0;
  let g2Sum = 0;
  for (let k = 0; k < length; k++) {
    poissonSum += poisson[k]!;
    g2Sum += g2[k]!;
  }
  let phi: number;
  if (poissonSum === 0) {
    let valid = 0;
    for (let k = 0; k < length; k++) if (g2[k]! > 0) scratch[valid++] = (error[k]! * error[k]!) / g2[k]!;
    phi = valid === 0 ? 0 : medianInPlace(scratch, valid) / CHI2_1_MEDIAN;
    if (phi === 0 && valid > 0) {
      let sum = 0;
      for (let k = 0; k < length; k++) if (g2[k]! > 0) sum += Math.abs(error[k]!) / Math.sqrt(g2[k]!);
      phi = ((MEAN_AD_TO_SD * sum) / valid) ** 2;
    }
  } else {
    // Fixed point on the median ratio, started from the previous refit's phi (the window moved a
    // little), else from median(e²)/0.455 minus the mean Poisson variance; steps use mean g² and p.
    const p = poissonSum / length;
    const g = g2Sum / length;
    let steps = 1;
    if (previous !== undefined && Number.isFinite(previous.phi)) phi = previous.phi;
    else {
      for (let k = 0; k < length; k++) scratch[k] = error[k]! * error[k]!;
      phi = g > 0 ? Math.max(0, (medianInPlace(scratch, length) / CHI2_1_MEDIAN - p) / g) : 0;
      steps = 3;
    }
    for (let step = 0; step < steps && g > 0; step++) {
      for (let k = 0; k < length; k++) scratch[k] = (error[k]! * error[k]!) / (phi * g2[k]! + poisson[k]!);
      const ratio = medianInPlace(scratch, length) / CHI2_1_MEDIAN;
      phi = Math.max(0, ((phi * g + p) * ratio - p) / g);
    }
  }
  return { phi, tail: tailFactor(sample, phi, scratch) };
}

/**
 * max(1, q_p / Φ⁻¹((1 + p) / 2)) of the standardized |errors|, at the farthest quantile p the
 * sample estimates well: ten errors beyond it, in [0.5, 0.98] (0.97 for an hourly window of 336
 * errors, 0.88 for a daily one of 84). Below 20 errors that is the median (no tail factor): the
 * largest of a few errors says nothing about the tail. (Five errors out, 0.985 hourly, found one
 * more NAB window but made the band of a clean hourly series twice as wide after a few odd errors.)
 */
function tailFactor(sample: ErrorSample, phi: number, scratch: Float64Array): number {
  const { error, g2, poisson, length } = sample;
  let count = 0;
  for (let k = 0; k < length; k++) {
    const variance = phi * g2[k]! + poisson[k]!;
    if (variance > 0) scratch[count++] = Math.abs(error[k]!) / Math.sqrt(variance);
  }
  if (count === 0) return 1;
  const p = Math.min(0.98, Math.max(0.5, 1 - 10 / count));
  const q = quantileInPlace(scratch, count, p);
  return Number.isFinite(q) ? Math.max(1, q / normalAbsQuantile(p)) : 1;
}
