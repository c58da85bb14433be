// One pass over a series: the state scoreSeries keeps from bucket to bucket.
import type { Calendar } from "./calendar.js";
import { chooseSeasonality } from "./choose-seasonality.js";
import { MEAN_AD_TO_SD } from "./mad.js";
import { LevelSmoother, type SmoothingCandidate } from "./level-smoother.js";
import { errorScale, type ErrorSample, type ErrorScale } from "./prediction-scale.js";
import { bandInto, newBand, type BandModel } from "./score-bucket.js";
import { createWorkspace, fitBaseline, seasonOf, type BaselineFit, type SeasonMode } from "./seasonal-baseline.js";
import { PAIR_RATIO, PairRule, type PairEdges } from "./pair-rule.js";
import { RangeCheck } from "./range-check.js";
import { medianInPlace } from "./select.js";
import { fromFitSpace, type FitSpace } from "./transform.js";
import type { AnomalySettings, BucketVerdict, Grain, SeriesVerdict } from "./types.js";

/** The level starts as the median of the last cycle's usable buckets (a day of hours, a week of days), trend-corrected. */
const LEVEL_BUCKETS: Record<Grain, number> = { hour: 24, day: 7 };
/** Smoothing candidates tried side by side (level-smoother.ts): from about a month to a few buckets of memory. */
const CANDIDATES: Record<Grain, readonly SmoothingCandidate[]> = {
  hour: [...[0.02, 0.06, 0.2].map((alpha) => ({ alpha, ownTrend: false })), ...[0.04, 0.1].map((alpha) => ({ alpha, ownTrend: true }))],
  day: [...[0.1, 0.25, 0.5].map((alpha) => ({ alpha, ownTrend: false })), ...[0.15, 0.3].map((alpha) => ({ alpha, ownTrend: true }))],
};
/** Huber's clip for level updates, in robust sds of the one-step error (Gelper et al. use 2). */
const HUBER = 2;
/**
 * Buckets between refits of the seasonal profile, trend and band scale. The level follows every
 * bucket (level-smoother.ts), so the profile only has to keep up with slow change; refitting at
 * every bucket would cost O(window) each.
 */
const REFIT_EVERY: Record<Grain, number> = { hour: 168, day: 7 };
/**
 * One-step prediction errors needed in the window before buckets are judged (the calibration
 * phase). With the day grain's min_history of 7 the first bucket judged is the 15th: a series is
 * judged from day 14, as the z-score; the band is widened for so few errors (smallSampleFactor).
 */
const MIN_ERRORS: Record<Grain, number> = { hour: 48, day: 7 };
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
 * A lone upward exceedance of the seasonal band in an hourly series whose errors are heavy-tailed
 * (tail factor above HEAVY_TAIL) is flagged only when the value is also beyond the z-score's own
 * edge, mean + 3 sds of the last 14 days (SECOND_OPINION_SDS, the peers' threshold). Why: such
 * series come in bursts (volatility clustering), and a burst's single high hour that stays within
 * what the last two weeks held is the series being itself; on the real set 155 of 161 false-alarm
 * episodes were upward, most of them lone buckets. Drops, pairs (a change that lasts) and the range
 * check are untouched, so an outage or a level shift is judged as before, and series with
 * near-normal errors (the tail factor of 336 normal errors is 1.06 on average, its sampling sd about
 * 0.06) keep the seasonal band alone. Hourly only: at day grain the 14-day sd comes from 14 values
 * and the daily band already widens for its few errors (docs/anomaly-eval.md measures both).
 */
const SECOND_OPINION_SDS = 3;
/** Tail factor above which errors count as heavy-tailed: four sampling sds above a normal sample's. */
const HEAVY_TAIL = 1.25;
/** Seasonality under auto is chosen from at most this many training windows of history. */
const CHOICE_WINDOWS = 4;

export interface RunInput {
  n: number;
  y: Float64Array;
  values: readonly number[];
  starts: readonly number[];
  calendar: Calendar;
  space: FitSpace;
  band: BandModel;
  /** auto: chosen at each refit from the history before the bucket (choose-seasonality.ts). */
  wanted: SeasonMode | "auto";
  settings: Required<AnomalySettings>;
  feedback: ReadonlySet<number> | undefined;
}

/** The state of one pass over a series; every buffer is allocated once per series. */
export class SeriesRun {
  private readonly usable: Uint8Array;
  private readonly yAdjusted: Float64Array;
  private readonly predicted: Float64Array;
  private readonly error: Float64Array;
  private readonly errorG2: Float64Array;
  private readonly errorPoisson: Float64Array;
  private readonly sample: ErrorSample;
  private readonly scratch: Float64Array;
  private readonly levelBuffer: Float64Array;
  private readonly smoother: LevelSmoother;
  private readonly workspace;
  private fit: BaselineFit | null = null;
  /** null while calibrating. */
  private scale: ErrorScale | null = null;
  private dirty = true;
  private fittedAt = -Infinity;
  private calibrated = 0;
  private inWindow = 0;
  private runStart = -1;
  private runSide = 0;
  private runFeedback = false;
  private runAllZero = true;
  private readonly shifts: number[] = [];
  private readonly band = newBand();
  /** The same bucket against the inner band of the pair rule (pair-rule.ts). */
  private readonly inner = newBand();
  private readonly pairs = new PairRule();
  private readonly pairEdges: PairEdges = { lower: 0, upper: 0 };

  private readonly innerModel: BandModel;
  private wanted: SeasonMode;
  private chosenAt = -Infinity;
  private readonly range: RangeCheck;
  /** The scale a bucket is judged with: this.scale widened for few errors and a noisy spell. */
  private readonly judged: ErrorScale = { phi: 0, tail: 1 };
  /** Small-sample factor of the current scale (smallSampleFactor). */
  private sampleFactor = 1;
  /** Mean capped squared standardized error over the window, at the last refit. */
  private longZ2 = Number.NaN;
  /** Exponential average of the same over the last VOLATILITY_MEMORY buckets. */
  private recentZ2 = Number.NaN;
  /**
   * What chance alone gives the ratio of the two: one standard error of an exponential average of
   * squared normal errors (effective sample 2H - 1, variance 2 / (2H - 1)) above 1. Only a spell
   * louder than that widens the band, so independent noise keeps the calibrated band.
   */
  private readonly chanceExcess: number;

  constructor(private readonly input: RunInput) {
    const { n, y, settings } = input;
    this.innerModel = { ...input.band, sensitivity: input.band.sensitivity * PAIR_RATIO };
    this.wanted = input.wanted === "auto" ? "none" : input.wanted;
    this.range = new RangeCheck(input.values, settings.grain);
    this.chanceExcess = 1 + Math.sqrt(2 / (2 * VOLATILITY_MEMORY[settings.grain] - 1));
    const w = settings.training_buckets;
    this.usable = new Uint8Array(n);
    this.yAdjusted = Float64Array.from(y);
    this.predicted = new Float64Array(n).fill(Number.NaN);
    this.error = new Float64Array(n).fill(Number.NaN);
    this.errorG2 = new Float64Array(n);
    this.errorPoisson = new Float64Array(n);
    this.sample = { error: new Float64Array(w), g2: new Float64Array(w), poisson: new Float64Array(w), length: 0 };
    this.scratch = new Float64Array(w + 2);
    this.levelBuffer = new Float64Array(LEVEL_BUCKETS[settings.grain]);
    this.smoother = new LevelSmoother(CANDIDATES[settings.grain], w);
    this.workspace = createWorkspace(w);
  }

  score(): SeriesVerdict {
    const { n, starts, values, y, settings, feedback } = this.input;
    const w = settings.training_buckets;
    const detectionFrom = n - Math.min(n, settings.detection_buckets);
    const buckets: BucketVerdict[] = new Array<BucketVerdict>(n);
    let scored = 0;
    let anomalous = 0;
    for (let i = 0; i < n; i++) {
      if (i >= 1 && this.usable[i - 1] === 1) this.inWindow++;
      if (i - w - 1 >= 0 && this.usable[i - w - 1] === 1) this.inWindow--;
      const start = starts[i]!;
      const value = values[i]!;
      const isFeedback = feedback?.has(start) ?? false;
      const verdict: BucketVerdict = {
        start,
        value,
        expected: null,
        lower: null,
        upper: null,
        anomalous: false,
        feedback: isFeedback,
        excluded: null,
        in_detection: i >= detectionFrom,
        deviations: null,
      };
      buckets[i] = verdict;
      if (!Number.isFinite(y[i]!)) {
        this.advanceLevel(i, false);
        this.pairs.reset();
        continue;
      }
      if (this.inWindow < settings.min_history) {
        this.usable[i] = 1;
        this.endRun();
        this.pairs.reset();
        continue;
      }
      const expected = this.scoreAt(i, value);
      if (Number.isNaN(expected)) {
        this.usable[i] = 1;
        this.advanceLevel(i, true);
        this.endRun();
        this.pairs.reset();
        continue;
      }
      const result = this.band;
      const pair = this.pairs.observe(i, this.inner, this.pairEdges);
      const range = this.range.judge(i, value, this.input.band.poisson);
      if (result.side > 0 && pair === 0 && range === 0) this.secondOpinion(value);
      const side = result.side !== 0 ? result.side : pair !== 0 ? pair : range;
      const flagged = side !== 0 && !isFeedback;
      verdict.expected = expected;
      // The band a bucket is judged against: the inner one when only the pair rule flags it, the
      // range's when only the range check does (range-check.ts).
      const byPair = flagged && result.side === 0 && pair !== 0;
      const byRange = flagged && result.side === 0 && pair === 0;
      verdict.lower = byPair && side < 0 ? this.inner.lower : byRange && side < 0 ? this.range.lower : result.lower;
      verdict.upper = byPair && side > 0 ? this.inner.upper : byRange && side > 0 ? this.range.upper : result.upper;
      verdict.deviations = result.deviations;
      verdict.anomalous = flagged;
      if (verdict.in_detection) {
        scored++;
        if (flagged) anomalous++;
      }
      if (pair !== 0 && !isFeedback && this.flagPrevious(buckets[i - 1]!, i - 1, pair)) anomalous++;
      this.usable[i] = flagged ? 0 : 1;
      // A flagged bucket's error counts capped at the band's edge (a range-flagged one is inside it).
      const capped = byRange ? value : side > 0 ? verdict.upper : verdict.lower;
      this.recordError(i, flagged ? capped : value, expected, flagged && buckets[i - 1]?.anomalous === true);
      this.advanceLevel(i, !flagged);
      // A feedback bucket joins a run only beyond the full band, as before the pair rule: two
      // moderate buckets, one marked expected, do not confirm a level shift.
      this.track(i, flagged ? side : result.side, isFeedback, value, pair !== 0 && !isFeedback);
    }
    const fitMode = this.fit?.mode ?? this.wanted;
    return {
      kind: scored > 0 ? "scored" : "insufficient_history",
      seasonality: fitMode,
      buckets,
      scored,
      anomalous,
      level_shift_at: this.shifts.length > 0 ? this.shifts[this.shifts.length - 1]! : null,
      level_shifts: this.shifts.slice(),
    };
  }

  /** Expected value of bucket i with this.band filled in; NaN when the bucket is not judged. */
  private scoreAt(i: number, value: number): number {
    const { calendar, settings, space, band } = this.input;
    // While the window cannot support the seasonality yet, retry once a cycle.
    const every = this.fit !== null && this.fit.mode !== this.wanted ? (settings.grain === "hour" ? 24 : 1) : REFIT_EVERY[settings.grain];
    if (this.dirty || this.fit === null || i - this.fittedAt >= every) {
      const from = Math.max(0, i - settings.training_buckets);
      // The choice is made at most once a refit cycle (retries while the window cannot support it
      // come every bucket daily: the test reads up to four windows of history).
      if (this.input.wanted === "auto" && i - this.chosenAt >= REFIT_EVERY[settings.grain]) {
        this.wanted = this.chooseAt(i);
        this.chosenAt = i;
      }
      const window = {
        y: this.yAdjusted,
        usable: this.usable,
        calendar,
        grain: settings.grain,
        from,
        to: i,
        residualScale: !this.smoother.initialized,
      };
      const previous = this.fit;
      this.fit = fitBaseline(window, this.wanted, this.workspace);
      // A new seasonal term (the weekday effect, once the history shows it) restarts the level
      // from the last cycle under the new profile: the old level had absorbed the missing term.
      if (previous !== null && this.smoother.initialized && previous.mode !== this.fit.mode)
        this.smoother.start(this.levelAt(i, this.fit), this.fit.slope);
      else if (previous !== null && this.smoother.initialized) this.smoother.shift(this.seasonShift(i, previous, this.fit));
      this.fittedAt = i;
      this.scale = this.currentScale(i);
      this.refreshVolatility(i);
      this.smoother.choose();
      this.dirty = false;
    }
    // Until the window supports the chosen seasonality, a bucket is not judged (and so trains): a
    // model without the weekly term would flag, and exclude, every weekend it has to learn from.
    if (this.fit.mode !== this.wanted) return Number.NaN;
    if (this.scale === null) return this.calibrate(i, value);
    if (!this.smoother.initialized) this.smoother.start(this.levelAt(i, this.fit), this.fit.slope);
    const predicted = this.smoother.predict(this.fit.slope) + seasonOf(this.fit, calendar, i);
    this.predicted[i] = predicted;
    const expected = fromFitSpace(space, predicted);
    const judged = this.judgedScale();
    if (!bandInto(this.band, value, expected, judged, band)) return Number.NaN;
    bandInto(this.inner, value, expected, judged, this.innerModel);
    return expected;
  }

  /** See SECOND_OPINION_SDS: a lone upward exceedance within the z-score's edge is not flagged. */
  private secondOpinion(value: number): void {
    if (this.input.settings.grain !== "hour" || !(this.scale!.tail > HEAVY_TAIL)) return;
    const edge = this.range.edgeAbove(SECOND_OPINION_SDS);
    if (!(value <= edge)) return;
    // The band reported is the wider of the two, so the value lies inside what it was judged against.
    this.band.upper = Math.max(this.band.upper, edge);
    this.band.side = 0;
  }

  /**
   * The pair rule flags bucket j (the one before) too, against its inner band: it leaves training
   * (its level update, clipped, has been made) and its error counts capped at that edge. Returns
   * true when it is a detection bucket newly flagged.
   */
  private flagPrevious(before: BucketVerdict, j: number, side: number): boolean {
    if (before.anomalous || before.feedback || before.expected === null) return false;
    before.anomalous = true;
    if (side > 0) before.upper = this.pairEdges.upper;
    else before.lower = this.pairEdges.lower;
    this.usable[j] = 0;
    this.error[j] = (side > 0 ? before.upper! : before.lower!) - before.expected;
    return before.in_detection;
  }

  /** Calibration: the bucket is predicted and its error recorded, but not judged (it trains). */
  private calibrate(i: number, value: number): number {
    const { calendar, space, settings } = this.input;
    const fit = this.fit!;
    if (!this.smoother.initialized) this.smoother.start(this.levelAt(i, fit), fit.slope);
    const predicted = this.smoother.predict(fit.slope) + seasonOf(fit, calendar, i);
    this.predicted[i] = predicted;
    this.recordError(i, value, fromFitSpace(space, predicted));
    // Enough errors: refit (and so set the scale) at the next bucket rather than at the next cycle.
    if (++this.calibrated >= MIN_ERRORS[settings.grain]) this.dirty = true;
    return Number.NaN;
  }

  /**
   * A refit may move the seasonal effects by a constant (they are centred on their median, and the
   * window moved); the deseasonalized level moves the other way, over the last cycle, so
   * predictions stay continuous across the refit.
   */
  private seasonShift(i: number, before: BaselineFit, after: BaselineFit): number {
    const { calendar, settings } = this.input;
    const cycle = LEVEL_BUCKETS[settings.grain];
    let sum = 0;
    let count = 0;
    for (let j = Math.max(0, i - cycle); j < i; j++) {
      sum += seasonOf(before, calendar, j) - seasonOf(after, calendar, j);
      count++;
    }
    return count > 0 ? sum / count : 0;
  }

  /** Moves the level past bucket i; it learns from the bucket only when the bucket may train. */
  private advanceLevel(i: number, trains: boolean): void {
    const fit = this.fit;
    if (fit === null || !this.smoother.initialized) return;
    const deseasonalized = trains ? this.yAdjusted[i]! - seasonOf(fit, this.input.calendar, i) : Number.NaN;
    const spread = MEAN_AD_TO_SD * this.smoother.meanAbsoluteError();
    const clip = HUBER * (Number.isFinite(spread) && spread > 0 ? spread : fit.residualScale);
    this.smoother.advance(deseasonalized, fit.slope, Number.isFinite(clip) && clip > 0 ? clip : Infinity);
  }

  /** Median of the last cycle's usable buckets, deseasonalized and carried along the trend to bucket i. */
  private levelAt(i: number, fit: BaselineFit): number {
    const { calendar, settings } = this.input;
    const buffer = this.levelBuffer;
    const floor = Math.max(0, i - settings.training_buckets);
    let length = 0;
    for (let j = i - 1; j >= floor && length < buffer.length; j--) {
      if (this.usable[j] !== 1) continue;
      const yj = this.yAdjusted[j]!;
      if (!Number.isFinite(yj)) continue;
      buffer[length++] = yj - seasonOf(fit, calendar, j) + fit.slope * (i - j);
    }
    return medianInPlace(buffer, length);
  }

  /**
   * Scale of the window's one-step prediction errors; null (calibrating) while there are too few.
   * A flagged bucket's error counts capped at the band's edge: the sample is not truncated (a
   * too-narrow band would otherwise keep excluding the errors that should widen it), and an
   * incident's size cannot widen the band.
   */
  private currentScale(i: number): ErrorScale | null {
    const { settings } = this.input;
    const sample = this.sample;
    let length = 0;
    for (let j = Math.max(0, i - settings.training_buckets); j < i; j++) {
      if (Number.isNaN(this.error[j]!)) continue;
      sample.error[length] = this.error[j]!;
      sample.g2[length] = this.errorG2[j]!;
      sample.poisson[length] = this.errorPoisson[j]!;
      length++;
    }
    sample.length = length;
    return length >= MIN_ERRORS[settings.grain] ? errorScale(sample, this.scratch, this.scale ?? undefined) : null;
  }

  /** `inRun`: a flagged bucket after a flagged one counts at most at chance's edge of the recent level. */
  private recordError(i: number, value: number, expected: number, inRun = false): void {
    const { band } = this.input;
    const g = band.relative ? Math.abs(expected) : 1;
    this.error[i] = value - expected;
    this.errorG2[i] = g * g;
    this.errorPoisson[i] = band.poisson ? Math.max(expected, 1) : 0;
    if (this.scale === null || !Number.isFinite(this.recentZ2)) return;
    const lambda = 1 - 1 / VOLATILITY_MEMORY[this.input.settings.grain];
    const z2 = this.cappedZ2(i, this.scale);
    this.recentZ2 = lambda * this.recentZ2 + (1 - lambda) * (inRun ? Math.min(z2, this.longZ2 * this.chanceExcess) : z2);
  }

  /** Squared standardized error of bucket i, capped at the band's edge (an incident cannot widen it much). */
  private cappedZ2(i: number, scale: ErrorScale): number {
    const variance = scale.phi * this.errorG2[i]! + this.errorPoisson[i]!;
    const k = this.input.band.sensitivity;
    if (!(variance > 0)) return 0;
    const z = this.error[i]! / (scale.tail * Math.sqrt(variance));
    return Math.min(z * z, k * k);
  }

  /** At a refit: the window's mean capped squared standardized error, and the small-sample factor. */
  private refreshVolatility(i: number): void {
    const scale = this.scale;
    if (scale === null) return;
    const { settings } = this.input;
    let sum = 0;
    let count = 0;
    for (let j = Math.max(0, i - settings.training_buckets); j < i; j++) {
      if (Number.isNaN(this.error[j]!)) continue;
      sum += this.cappedZ2(j, scale);
      count++;
    }
    this.longZ2 = count > 0 ? sum / count : Number.NaN;
    if (!Number.isFinite(this.recentZ2)) this.recentZ2 = this.longZ2;
    this.sampleFactor = smallSampleFactor(this.input.band.sensitivity, count);
  }

  private judgedScale(): ErrorScale {
    const scale = this.scale!;
    const ratio = this.longZ2 > 0 ? this.recentZ2 / this.longZ2 / this.chanceExcess : 1;
    this.judged.phi = scale.phi;
    const widen = this.sampleFactor * Math.sqrt(Number.isFinite(ratio) ? Math.max(1, ratio) : 1);
    this.judged.tail = scale.tail * widen;
    return this.judged;
  }

  /**
   * The seasonality the history before bucket i supports (auto). Hourly, until three weeks can
   * test the weekday effect, a week is assumed (buckets are judged once the window holds each
   * weekday, as before the choice was made from the history): a business's first weekend is not an
   * incident. Daily, the weekday effect is only fitted once the test shows it (three weeks): from
   * day 14 to 21 a daily series is judged without it, with the band its errors give.
   */
  private chooseAt(i: number): SeasonMode {
    const { calendar, settings } = this.input;
    if (settings.grain === "hour" && settings.training_buckets >= 14 * 24 && i < 21 * 24) return "weekly";
    const from = Math.max(0, i - CHOICE_WINDOWS * settings.training_buckets);
    const y = new Float64Array(i - from);
    for (let j = from; j < i; j++) y[j - from] = this.usable[j] === 1 ? this.yAdjusted[j]! : Number.NaN;
    const window = {
      hourOfDay: calendar.hourOfDay.subarray(from, i),
      dayOfWeek: calendar.dayOfWeek.subarray(from, i),
      row: calendar.row.subarray(from, i),
    };
    return chooseSeasonality(y, window, settings.grain, settings.training_buckets).chosen;
  }

  /** Follows runs of out-of-band buckets on one side and re-learns a level shift that persists. */
  private track(i: number, side: number, isFeedback: boolean, value: number, pair: boolean): void {
    if (side === 0) {
      this.endRun();
      return;
    }
    if (this.runStart < 0 || this.runSide !== side) {
      // A pair starts its run at the bucket before.
      this.runStart = pair ? i - 1 : i;
      this.runSide = side;
      this.runFeedback = false;
      this.runAllZero = !pair || this.input.values[i - 1] === 0;
    }
    this.runFeedback ||= isFeedback;
    this.runAllZero &&= value === 0;
    const length = i - this.runStart + 1;
    const { band, settings } = this.input;
    const persistent = length >= settings.relearn_buckets && !(band.poisson && this.runAllZero);
    const confirmed = this.runFeedback && length >= 2;
    if (persistent || confirmed) this.relearn(this.runStart, i);
  }

  private endRun(): void {
    this.runStart = -1;
    this.runSide = 0;
  }

  /** The shift's size is the median error over the run; older history moves by it and the run joins training. */
  private relearn(from: number, to: number): void {
    const { y, starts, settings } = this.input;
    let length = 0;
    for (let j = from; j <= to; j++) {
      const delta = y[j]! - this.predicted[j]!;
      if (Number.isFinite(delta)) this.scratch[length++] = delta;
    }
    const shift = medianInPlace(this.scratch, length);
    if (Number.isFinite(shift)) {
      this.smoother.shift(shift);
      const oldest = Math.max(0, from - settings.training_buckets - LEVEL_BUCKETS[settings.grain]);
      for (let j = oldest; j < from; j++) this.yAdjusted[j] = this.yAdjusted[j]! + shift;
    }
    const windowFrom = to - settings.training_buckets;
    for (let j = from; j <= to; j++) {
      this.error[j] = Number.NaN;
      if (this.usable[j] === 1 || !Number.isFinite(y[j]!)) continue;
      this.usable[j] = 1;
      if (j >= windowFrom && j < to) this.inWindow++;
    }
    this.shifts.push(starts[from]!);
    this.range.restart(from);
    this.dirty = true;
    this.endRun();
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
