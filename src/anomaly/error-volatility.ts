// How much wider than its calibrated scale a bucket is judged: for few errors (a short history)
// and for a noisy spell (residuals come in bursts). Used by series-run.ts at every bucket.
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

export class ErrorVolatility {
  /** Mean capped squared standardized error over the window, at the last refit. */
  private longZ2 = Number.NaN;
  /** Exponential average of the same over the last VOLATILITY_MEMORY buckets. */
  private recentZ2 = Number.NaN;
  /** Small-sample factor of the current scale (smallSampleFactor). */
  private sampleFactor = 1;
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
    grain: Grain,
    private readonly sensitivity: number,
  ) {
    this.lambda = 1 - 1 / VOLATILITY_MEMORY[grain];
    this.chanceExcess = 1 + Math.sqrt(2 / (2 * VOLATILITY_MEMORY[grain] - 1));
  }

  /** At a refit: the window's mean capped z² and how many errors it has. */
  refresh(window: { mean: number; count: number }): void {
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
    this.judged.tail = scale.tail * widen;
    return this.judged;
  }
}

/**
 * The band's widening for a scale estimated from m prediction errors: the Student-t quantile with
 * m - 1 degrees of freedom over the normal one at the sensitivity (Cornish–Fisher expansion of the
 * t quantile; the errors are out-of-sample, so the level's own uncertainty is in them already).
 * 1.5 with 7 errors at k = 2.9, 1.03 with 84, 1.01 with 336: wide while the history is short, the
 * calibrated band once it is not.
 */
export function smallSampleFactor(k: number, m: number): number {
  if (m < 2) return 1;
  const v = m - 1;
  const t = k + (k ** 3 + k) / (4 * v) + (5 * k ** 5 + 16 * k ** 3 + 3 * k) / (96 * v * v);
  return t / k;
}
