// The one-step prediction errors of a pass over a series (series-run.ts), bucket by bucket, and
// what is read off them: the band's scale over a window and each error standardized by it.
import { errorScale, type ErrorSample, type ErrorScale } from "./prediction-scale.js";
import type { BandModel } from "./score-bucket.js";

export class PredictionErrors {
  /** observed - expected, original units; NaN where the bucket was not predicted */
  readonly error: Float64Array;
  private readonly g2: Float64Array;
  private readonly poisson: Float64Array;
  private readonly sample: ErrorSample;
  /** windowLength + 2 entries, also lent to the run for its medians */
  readonly scratch: Float64Array;

  constructor(
    n: number,
    windowLength: number,
    private readonly band: BandModel,
  ) {
    this.error = new Float64Array(n).fill(Number.NaN);
    this.g2 = new Float64Array(n);
    this.poisson = new Float64Array(n);
    this.sample = {
      error: new Float64Array(windowLength),
      g2: new Float64Array(windowLength),
      poisson: new Float64Array(windowLength),
      length: 0,
    };
    this.scratch = new Float64Array(windowLength + 2);
  }

  record(i: number, value: number, expected: number): void {
    const g = this.band.relative ? Math.abs(expected) : 1;
    this.error[i] = value - expected;
    this.g2[i] = g * g;
    this.poisson[i] = this.band.poisson ? Math.max(expected, 1) : 0;
  }

  /**
   * Scale of the errors of buckets [from, to); null (calibrating) while fewer than `minErrors`.
   * A flagged bucket's error counts capped at the band's edge (the caller records it so): the
   * sample is not truncated (a too-narrow band would otherwise keep excluding the errors that
   * should widen it), and an incident's size cannot widen the band.
   */
  scale(from: number, to: number, minErrors: number, previous: ErrorScale | null): ErrorScale | null {
    const sample = this.sample;
    let length = 0;
    for (let j = from; j < to; j++) {
      if (Number.isNaN(this.error[j]!)) continue;
      sample.error[length] = this.error[j]!;
      sample.g2[length] = this.g2[j]!;
      sample.poisson[length] = this.poisson[j]!;
      length++;
    }
    sample.length = length;
    return length >= minErrors ? errorScale(sample, this.scratch, previous ?? undefined) : null;
  }

  /** Errors recorded in buckets [from, to). */
  count(from: number, to: number): number {
    let count = 0;
    for (let j = from; j < to; j++) if (!Number.isNaN(this.error[j]!)) count++;
    return count;
  }

  /** Squared standardized error of bucket i, capped at the band's edge (an incident cannot widen it much). */
  cappedZ2(i: number, scale: ErrorScale): number {
    const sd = this.sdAt(i, scale);
    const k = this.band.sensitivity;
    if (Number.isNaN(sd)) return 0;
    const z = this.error[i]! / sd;
    return Math.min(z * z, k * k);
  }

  /** The band's sd at bucket i under `scale` (tail · √(phi·g² + p)); NaN where the variance is not positive. */
  private sdAt(i: number, scale: ErrorScale): number {
    const variance = scale.phi * this.g2[i]! + this.poisson[i]!;
    return variance > 0 ? scale.tail * Math.sqrt(variance) : Number.NaN;
  }

  /**
   * Lag-one correlation of the standardized errors (each capped at ±sensitivity, as cappedZ2) over
   * buckets [from, to), about 0 when they are independent; NaN with fewer than 20 neighbouring pairs.
   */
  lagOneCorrelation(from: number, to: number, scale: ErrorScale): number {
    const k = this.band.sensitivity;
    let products = 0;
    let squares = 0;
    let pairs = 0;
    let previous = Number.NaN;
    for (let j = from; j < to; j++) {
      const z = Math.max(-k, Math.min(k, this.error[j]! / this.sdAt(j, scale)));
      if (!Number.isNaN(z)) {
        squares += z * z;
        if (!Number.isNaN(previous)) {
          products += z * previous;
          pairs++;
        }
      }
      previous = z;
    }
    return pairs >= 20 && squares > 0 ? products / squares : Number.NaN;
  }

  /** Mean capped squared standardized error over buckets [from, to), and how many it averages. */
  meanCappedZ2(from: number, to: number, scale: ErrorScale): { mean: number; count: number } {
    let sum = 0;
    let count = 0;
    for (let j = from; j < to; j++) {
      if (Number.isNaN(this.error[j]!)) continue;
      sum += this.cappedZ2(j, scale);
      count++;
    }
    return { mean: count > 0 ? sum / count : Number.NaN, count };
  }
}
