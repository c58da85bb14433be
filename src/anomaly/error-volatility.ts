// How much wider than its calibrated scale a bucket is judged: for few errors (a short history),
// for a noisy spell (residuals come in bursts) and, hourly, for errors that come in runs
// (autocorrelated). Used by series-run.ts at every bucket.
import type { Grain } from "./types.js";
import type { ErrorScale } from "./prediction-scale.js";

/**
 * Memory of the recent error level, in buckets (an exponential average of squared standardized
 * errors): residuals come in bursts (volatility clustering), and while the recent errors are
 * louder than the window's by more than chance gives, the band widens by the excess (as a GARCH
 * variance would), so a noisy spell is not a string of alarms. The first flagged bucket of a run
 * counts capped at the band's edge (the spell it starts is one alarm, not several); the rest of
 * the run does not, so an outage stays flagged however long it lasts.
 */
const VOLATILITY_MEMORY: Record<Grain, number> = { hour: 12, day: 5 };

/**
 * Hourly errors whose lag-one correlation is above CORRELATED are autocorrelated: 336 independent
 * errors give 0 with a sampling sd of about 0.055, so 0.2 is over three and a half sds above chance.
 * Real hourly residuals are (the NAB series' median is 0.34; the generated series with independent
 * noise 0.11): a model's error carries over from hour to hour, so one hour beyond a band calibrated
 * on the errors' spread is less surprising than under independent noise. The band widens by
 * 1 + CORRELATION_WIDENING × (rho - CORRELATED): ×1.28 at 0.34, so the hourly default of 3 acts
 * as about 3.8 on such a series and as 3 on one whose errors are independent. Hourly only: from a
 * daily window's 84 errors the sd of rho is 0.11, and 0.2 is chance (docs/anomaly-eval.md measures
 * both).
 */
export const CORRELATED = 0.2;
const CORRELATION_WIDENING = 2;

export class ErrorVolatility {
  /** Mean capped squared standardized error over the window, at the last refit. */
  private longZ2 = Number.NaN;
  /** Exponential average of the same over the last VOLATILITY_MEMORY buckets. */
  private recentZ2 = Number.NaN;
  /** Small-sample factor of the current scale (smallSampleFactor). */
  private sampleFactor = 1;
  /** Lag-one correlation of the window's standardized errors at the last refit (hourly; NaN daily). */
  private correlation = Number.NaN;
  private readonly lambda: number;
  /**
   * What chance alone gives the ratio of the two: one standard error of an exponential average of
   * squared normal errors (effective sample 2H - 1, variance 2 / (2H - 1)) above 1. Only a spell
   * louder than that widens the band, so independent noise keeps the calibrated band.
   */
  private readonly chanceExcess: number;
  /** The scale a bucket is judged with, reused from bucket to bucket. */
  private readonly judged: ErrorScale = { phi: 0, tail: 1 };

  constructor(
    private readonly grain: Grain,
    private readonly sensitivity: number,
  ) {
    this.lambda = 1 - 1 / VOLATILITY_MEMORY[grain];
    this.chanceExcess = 1 + Math.sqrt(2 / (2 * VOLATILITY_MEMORY[grain] - 1));
  }

  /** At a refit: the window's mean capped z², how many errors it has, and their lag-one correlation. */
  refresh(window: { mean: number; count: number }, correlation: number): void {
    this.correlation = this.grain === "hour" ? correlation : Number.NaN;
    this.longZ2 = window.mean;
    if (!Number.isFinite(this.recentZ2)) this.recentZ2 = this.longZ2;
    this.sampleFactor = smallSampleFactor(this.sensitivity, window.count);
  }

  /** A new error's capped z²; `inRun`: a flagged bucket after a flagged one counts at most at chance's edge. */
  observe(z2: number, inRun: boolean): void {
    if (!Number.isFinite(this.recentZ2)) return;
    this.recentZ2 = this.lambda * this.recentZ2 + (1 - this.lambda) * (inRun ? Math.min(z2, this.longZ2 * this.chanceExcess) : z2);
  }

  /** `scale` widened for few errors and a noisy spell. */
  widen(scale: ErrorScale): ErrorScale {
    const ratio = this.longZ2 > 0 ? this.recentZ2 / this.longZ2 / this.chanceExcess : 1;
    this.judged.phi = scale.phi;
    const widen = this.sampleFactor * Math.sqrt(Number.isFinite(ratio) ? Math.max(1, ratio) : 1);
    const runs = this.correlated ? 1 + CORRELATION_WIDENING * (this.correlation - CORRELATED) : 1;
    this.judged.tail = scale.tail * widen * runs;
    return this.judged;
  }

  /** Hourly errors that come in runs (see CORRELATED); false daily and while calibrating. */
  get correlated(): boolean {
    return this.correlation > CORRELATED;
  }
}

/**
 * The band's widening for a scale estimated from m prediction errors: the Student-t quantile with
 * m - 1 degrees of freedom over the normal one at the sensitivity (Cornish–Fisher expansion of the
 * t quantile; the errors are out-of-sample, so the level's own uncertainty is in them already).
 * 1.51 with 7 errors at k = 2.85, 1.03 with 84, 1.01 with 336: wide while the history is short, the
 * calibrated band once it is not.
 */
export function smallSampleFactor(k: number, m: number): number {
  if (m < 2) return 1;
  const v = m - 1;
  const t = k + (k ** 3 + k) / (4 * v) + (5 * k ** 5 + 16 * k ** 3 + 3 * k) / (96 * v * v);
  return t / k;
}
