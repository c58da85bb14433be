// The deseasonalized level, followed bucket by bucket.

/**
 * Robust exponential smoothing of the level (Gelper, Fried & Croux 2010, "Robust forecasting with
 * exponential and Holt–Winters smoothing"): level ← prediction + α·ψ(error), with ψ Huber's clip
 * at ±clip, so one unflagged outlier moves the level by at most α·clip. The trend is given (the
 * window fit's resistant line), so the one-step prediction is level + slope and never lags a trend.
 * Candidates with their own trend follow Brown's double exponential smoothing (Holt with
 * α(2-α) on the level and α² on the slope, one parameter), for drifts that bend faster than the
 * window's straight line. Several candidates run side by side; the one with the smallest mean absolute clipped error over the last
 * `window` usable buckets predicts, so a series whose level wanders follows it closely and a noisy
 * flat one averages over long. Flagged and missing buckets do not update (the level carries on
 * along the trend). O(candidates) per bucket, no allocation after construction.
 */
export interface SmoothingCandidate {
  alpha: number;
  /** true: Brown's local trend; false: the window fit's slope. */
  ownTrend: boolean;
}

export class LevelSmoother {
  private readonly levels: Float64Array;
  private readonly slopes: Float64Array;
  private readonly levelGain: Float64Array;
  private readonly slopeGain: Float64Array;
  private readonly sums: Float64Array;
  private readonly ring: Float64Array;
  private readonly used: Uint8Array;
  private cursor = 0;
  private count = 0;
  private best: number;
  initialized = false;

  private readonly candidates: readonly SmoothingCandidate[];

  constructor(
    candidates: readonly SmoothingCandidate[],
    private readonly window: number,
  ) {
    const size = candidates.length;
    this.candidates = candidates;
    this.levels = new Float64Array(size);
    this.slopes = new Float64Array(size);
    this.levelGain = Float64Array.from(candidates, (c) => (c.ownTrend ? c.alpha * (2 - c.alpha) : c.alpha));
    this.slopeGain = Float64Array.from(candidates, (c) => (c.ownTrend ? c.alpha * c.alpha : 0));
    this.sums = new Float64Array(size);
    this.ring = new Float64Array(window * size);
    this.used = new Uint8Array(window);
    this.best = Math.floor(size / 2);
  }

  /** Starts every candidate so that the next prediction is `prediction`. */
  start(prediction: number, slope: number): void {
    this.levels.fill(prediction - slope);
    this.slopes.fill(slope);
    this.initialized = true;
  }

  /** One-step prediction of the deseasonalized value. */
  predict(slope: number): number {
    return this.levels[this.best]! + this.slopeOf(this.best, slope);
  }

  private slopeOf(c: number, fitSlope: number): number {
    return this.candidates[c]!.ownTrend ? this.slopes[c]! : fitSlope;
  }

  /** Mean absolute clipped error of the predicting candidate over the window; NaN before any. */
  meanAbsoluteError(): number {
    return this.count > 0 ? this.sums[this.best]! / this.count : Number.NaN;
  }

  /** Advances one bucket: `observed` is the deseasonalized value, NaN when the bucket may not train. */
  advance(observed: number, slope: number, clip: number): void {
    const candidates = this.candidates.length;
    const slot = this.cursor;
    const wasUsed = this.used[slot] === 1;
    const usable = Number.isFinite(observed);
    for (let c = 0; c < candidates; c++) {
      const prediction = this.levels[c]! + this.slopeOf(c, slope);
      if (wasUsed) this.sums[c]! -= this.ring[slot * candidates + c]!;
      if (usable) {
        const error = Math.max(-clip, Math.min(clip, observed - prediction));
        this.levels[c] = prediction + this.levelGain[c]! * error;
        this.slopes[c]! += this.slopeGain[c]! * error;
        const absolute = Math.abs(error);
        this.ring[slot * candidates + c] = absolute;
        this.sums[c]! += absolute;
      } else this.levels[c] = prediction;
    }
    if (wasUsed) this.count--;
    if (usable) this.count++;
    this.used[slot] = usable ? 1 : 0;
    this.cursor = (slot + 1) % this.window;
  }

  /** Lets the candidate with the smallest recent error predict (called at each refit). */
  choose(): void {
    if (this.count < 8) return;
    let best = this.best;
    for (let c = 0; c < this.candidates.length; c++) if (this.sums[c]! < this.sums[best]!) best = c;
    this.best = best;
  }

  /** A re-learnt level shift moves every candidate. */
  shift(delta: number): void {
    for (let c = 0; c < this.levels.length; c++) this.levels[c] = this.levels[c]! + delta;
  }
}
