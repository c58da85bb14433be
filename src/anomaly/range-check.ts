// The second detector beside the seasonal band: is the value far outside what the last two weeks held?
import type { Grain } from "./types.js";

/** The range check looks back 14 days (as the Elementary-style z-score does). */
export const RANGE_DAYS = 14;
/**
 * Sds from the range's mean beyond which a bucket is out of range, at every grain and sensitivity:
 * a guard for values far outside anything recent, not a band to tune (beyond 4.5 sds is under 5%
 * of any distribution's mass by Chebyshev's inequality, about 7e-6 of a normal one's; the 14-day
 * sd holds the daily swing, so a daily peak is never out of range).
 */
export const RANGE_SDS = 4.5;

/**
 * Mean and population sd of the finite values in the RANGE_DAYS before each bucket (at least half
 * of them present, and none from before a re-learnt level shift), every bucket
 * included (flagged ones too: what the series has actually done). A bucket is beyond the range
 * when it lies more than RANGE_SDS sds from that mean (for counts the upper edge with the Cornish–Fisher
 * skew term (k² - 1)/6 · w, w the Poisson share of the variance, as the band's, so a sparse
 * count's usual skew is not out of range).
 *
 * Why both: the seasonal band judges a bucket against what its hour and weekday lead to expect,
 * with a scale from one-step errors, and so sees a deviation the size of the noise; on real series
 * those errors come in spells the band cannot know of yet, while an incident that matters usually
 * leaves the whole range the series has lately shown. The range check catches that (whatever the
 * model expected: after a burst the level may have followed it), and its sd, which holds the
 * daily swing and past bursts, keeps it quiet otherwise. docs/anomaly-eval.md measures each.
 * Running sums, shifted by the first value so that large values do not cancel: O(1) a bucket.
 */
export class RangeCheck {
  private readonly window: number;
  private readonly values: readonly number[];
  private shift = Number.NaN;
  private sum = 0;
  private squares = 0;
  private count = 0;
  private next = 0;
  private first = 0;
  lower = 0;
  upper = 0;
  /** Mean and population sd of the last judge's window (NaN when it had too few values or no spread). */
  private centre = Number.NaN;
  private sd = Number.NaN;

  constructor(values: readonly number[], grain: Grain) {
    this.values = values;
    this.window = RANGE_DAYS * (grain === "hour" ? 24 : 1);
  }

  /**
   * Sets lower/upper for bucket i (buckets are visited in increasing order) and returns the side
   * (±1) when `value` is beyond them, 0 inside or with fewer than 3 values or no spread.
   */
  judge(i: number, value: number, counts: boolean): -1 | 0 | 1 {
    const k = RANGE_SDS;
    this.advanceTo(i);
    this.centre = this.sd = Number.NaN;
    if (this.count < this.window / 2) return 0;
    const mean = this.sum / this.count;
    const variance = Math.max(0, this.squares / this.count - mean * mean);
    if (!(variance > 0)) return 0;
    const sd = Math.sqrt(variance);
    const centre = mean + this.shift;
    this.centre = centre;
    this.sd = sd;
    return this.sideAt(value, k, sd, variance, counts);
  }

  /**
   * The z-score's judgement of the value last judged: lower/upper become mean ± sds·sd and the side
   * is returned; 0 when the window could not judge. For counts, as the band's edges: the sd never
   * below the Poisson noise's √max(mean, 1), and the upper edge with the skew term (a sparse count's
   * 14-day sd said a 2 after a fortnight of 0s and 1s was an incident: 21 of 1,400 young days of a
   * Poisson(1) series flagged, none with these edges' 0).
   */
  judgeAt(value: number, sds: number, counts: boolean): -1 | 0 | 1 {
    if (!Number.isFinite(this.centre) || !Number.isFinite(this.sd)) return 0;
    const sd = counts ? Math.max(this.sd, Math.sqrt(Math.max(this.centre, 1))) : this.sd;
    return this.sideAt(value, sds, sd, sd * sd, counts);
  }

  /**
   * Sets lower/upper to centre ± sds·sd (for counts the upper edge with the skew term, w the
   * Poisson share of `variance`) and returns the side `value` is on.
   */
  private sideAt(value: number, sds: number, sd: number, variance: number, counts: boolean): -1 | 0 | 1 {
    const poisson = counts ? Math.max(this.centre, 1) : 0;
    const skew = counts ? (Math.max(0, sds * sds - 1) / 6) * Math.min(1, poisson / variance) : 0;
    this.upper = this.centre + sds * sd + skew;
    this.lower = this.centre - sds * sd;
    return value > this.upper ? 1 : value < this.lower ? -1 : 0;
  }

  /** The population sd of the window last judged; NaN when it could not judge. */
  get spread(): number {
    return this.sd;
  }

  /** The mean of the window last judged; NaN when it could not judge. */
  get mean(): number {
    return this.centre;
  }

  /** How many values the window last judged held. */
  get size(): number {
    return this.count;
  }

  /** mean + sds·sd of the window last judged; NaN when it could not judge. */
  edgeAbove(sds: number): number {
    return this.centre + sds * this.sd;
  }

  /**
   * After a level shift is re-learnt the range restarts at the shift: the old level says nothing of
   * the new one's range (and would flag the new level for two weeks).
   */
  restart(from: number): void {
    this.shift = Number.NaN;
    this.sum = this.squares = this.count = 0;
    this.first = from;
    this.next = from;
  }

  private advanceTo(i: number): void {
    for (; this.next < i; this.next++) {
      this.add(this.values[this.next]!, 1);
      const old = this.next - this.window;
      if (old >= this.first) this.add(this.values[old]!, -1);
    }
  }

  private add(value: number, sign: 1 | -1): void {
    if (!Number.isFinite(value)) return;
    if (Number.isNaN(this.shift)) this.shift = value;
    const x = value - this.shift;
    this.sum += sign * x;
    this.squares += sign * x * x;
    this.count += sign;
  }
}
