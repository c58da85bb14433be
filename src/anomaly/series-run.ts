// One pass over a series: the state scoreSeries keeps from bucket to bucket.
import type { Calendar } from "./calendar.js";
import { chooseSeasonality } from "./choose-seasonality.js";
import { MEAN_AD_TO_SD } from "./mad.js";
import { LevelSmoother } from "./level-smoother.js";
import {
  CANDIDATES,
  CHOICE_WINDOWS,
  HUBER,
  LEVEL_BUCKETS,
  MIN_ERRORS,
  OWN_ERRORS,
  REFIT_EVERY,
  SECOND_OPINION_SDS,
} from "./series-run-settings.js";
import type { ErrorScale } from "./prediction-scale.js";
import { PredictionErrors } from "./prediction-errors.js";
import { ErrorVolatility } from "./error-volatility.js";
import { bandInto, newBand, type BandModel } from "./score-bucket.js";
import { createWorkspace, fitBaseline, seasonOf, type BaselineFit, type SeasonMode } from "./seasonal-baseline.js";
import { PAIR_RATIO, PairRule, type PairEdges } from "./pair-rule.js";
import { RangeCheck } from "./range-check.js";
import { medianInPlace } from "./select.js";
import { levelAt, seasonShift } from "./level-start.js";
import { fromFitSpace, type FitSpace } from "./transform.js";
import { YoungDaily, zScoreSds } from "./young-daily.js";
import type { AnomalySettings, BucketVerdict, SeriesVerdict } from "./types.js";

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
  private readonly errors: PredictionErrors;
  private readonly volatility: ErrorVolatility;
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
  /** The refit at which the current seasonal mode began (errors before it were made under another). */
  private modeSince = 0;
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
  private readonly young: YoungDaily;

  constructor(private readonly input: RunInput) {
    const { n, y, settings } = input;
    this.innerModel = { ...input.band, sensitivity: input.band.sensitivity * PAIR_RATIO };
    this.wanted = input.wanted === "auto" ? "none" : input.wanted;
    this.range = new RangeCheck(input.values, settings.grain);
    this.volatility = new ErrorVolatility(settings.grain, input.band.sensitivity);
    const w = settings.training_buckets;
    this.usable = new Uint8Array(n);
    this.young = new YoungDaily(settings.grain, {
      values: input.values,
      starts: input.starts,
      usable: this.usable,
      sensitivity: input.band.sensitivity,
    });
    this.yAdjusted = y.slice();
    this.predicted = new Float64Array(n).fill(Number.NaN);
    this.errors = new PredictionErrors(n, w, input.band);
    this.scratch = this.errors.scratch;
    this.levelBuffer = new Float64Array(LEVEL_BUCKETS[settings.grain]);
    this.smoother = new LevelSmoother(CANDIDATES[settings.grain], w);
    this.workspace = createWorkspace(w);
  }

  score(): SeriesVerdict {
    const { n, starts, values, settings, feedback } = this.input;
    const w = settings.training_buckets;
    const detectionFrom = n - Math.min(n, settings.detection_buckets);
    const buckets: BucketVerdict[] = new Array<BucketVerdict>(n);
    const counts = { scored: 0, anomalous: 0 };
    for (let i = 0; i < n; i++) {
      if (i >= 1 && this.usable[i - 1] === 1) this.inWindow++;
      if (i - w - 1 >= 0 && this.usable[i - w - 1] === 1) this.inWindow--;
      const start = starts[i]!;
      buckets[i] = {
        start,
        value: values[i]!,
        expected: null,
        lower: null,
        upper: null,
        anomalous: false,
        feedback: feedback?.has(start) ?? false,
        excluded: null,
        in_detection: i >= detectionFrom,
        deviations: null,
      };
      this.step(i, buckets, counts);
    }
    const { scored, anomalous } = counts;
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

  /** Bucket i: skipped (missing), training only (too little history, not judged yet) or judged. */
  private step(i: number, buckets: BucketVerdict[], counts: { scored: number; anomalous: number }): void {
    const { y, settings } = this.input;
    if (!Number.isFinite(y[i]!)) {
      this.advanceLevel(i, false);
      this.pairs.reset();
      return;
    }
    this.young.seen(i);
    const expected = this.inWindow < settings.min_history ? Number.NaN : this.scoreAt(i, buckets[i]!.value);
    if (Number.isNaN(expected)) {
      this.usable[i] = 1;
      // Below min_history the level is not started yet: nothing to advance.
      if (this.inWindow >= settings.min_history) this.advanceLevel(i, true);
      this.endRun();
      this.pairs.reset();
      return;
    }
    this.judge(i, expected, buckets, counts);
  }

  /** Bucket i against its band, the pair rule and the range check; then it trains (or not) and runs are followed. */
  private judge(i: number, expected: number, buckets: BucketVerdict[], counts: { scored: number; anomalous: number }): void {
    const verdict = buckets[i]!;
    const value = verdict.value;
    const isFeedback = verdict.feedback;
    const result = this.band;
    let pair = this.pairs.observe(i, this.inner, this.pairEdges);
    let range = this.range.judge(i, value, this.input.band.poisson);
    // A daily series too young to test its weekday effect (young-daily.ts): the z-score judges it
    // unless its week's swing dominates; then the seasonal band, the week's repeats not flagged.
    const young = this.young.judgeOf(i, this.fit?.mode === "weekly", this.range.spread);
    const byZ = young === "z-score";
    // The seasonal band's edges, which a flagged bucket's error is capped at when the z-score judged it.
    const seasonalLower = result.lower;
    const seasonalUpper = result.upper;
    if (byZ) {
      range = this.range.judgeAt(value, zScoreSds(this.range.size), this.input.band.poisson);
      result.side = 0;
      pair = 0;
    }
    if (result.side > 0 && pair === 0 && range === 0) this.secondOpinion(value);
    const out = result.side !== 0 || pair !== 0;
    if (young === "seasonal" && out && range === 0 && this.young.absorbRepeat(i, result, this.inner, expected, result.side || pair))
      pair = 0;
    const side = result.side !== 0 ? result.side : pair !== 0 ? pair : range;
    const flagged = side !== 0 && !isFeedback;
    verdict.expected = byZ ? this.range.mean : expected;
    // The band a bucket is judged against: the inner one when only the pair rule flags it, the
    // range's when only the range check does (range-check.ts).
    const byPair = flagged && result.side === 0 && pair !== 0;
    const byRange = flagged && result.side === 0 && pair === 0;
    // ... and the z-score's, whether it flags or not, where it judges.
    verdict.lower = byZ || (byRange && side < 0) ? this.range.lower : byPair && side < 0 ? this.inner.lower : result.lower;
    verdict.upper = byZ || (byRange && side > 0) ? this.range.upper : byPair && side > 0 ? this.inner.upper : result.upper;
    verdict.deviations = byZ ? this.zDeviations(value) : result.deviations;
    verdict.anomalous = flagged;
    if (verdict.in_detection) {
      counts.scored++;
      if (flagged) counts.anomalous++;
    }
    if (pair !== 0 && !isFeedback && this.flagPrevious(buckets[i - 1]!, i - 1, pair)) counts.anomalous++;
    this.usable[i] = flagged ? 0 : 1;
    // A flagged bucket's error counts capped at the band's edge (a range-flagged one is inside it;
    // one the z-score flags, at the seasonal band's edge: the model's errors calibrate that band).
    const capped = byZ
      ? Math.min(Math.max(value, seasonalLower), seasonalUpper)
      : byRange
        ? value
        : side > 0
          ? verdict.upper
          : verdict.lower;
    this.recordError(i, flagged ? capped : value, expected, flagged && buckets[i - 1]?.anomalous === true);
    this.advanceLevel(i, !flagged);
    // A feedback bucket joins a run only beyond the full band, as before the pair rule: two
    // moderate buckets, one marked expected, do not confirm a level shift.
    this.track(i, flagged ? side : result.side, isFeedback, value, pair !== 0 && !isFeedback);
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
      // from the last cycle under the new profile: the old level had absorbed the missing term;
      // the band is calibrated on the new mode's own errors once there are enough (OWN_ERRORS).
      if (previous !== null && this.smoother.initialized && previous.mode !== this.fit.mode) {
        this.smoother.start(this.levelAt(i, this.fit), this.fit.slope);
        this.modeSince = i;
      } else if (previous !== null && this.smoother.initialized) this.smoother.shift(this.seasonShift(i, previous, this.fit));
      this.fittedAt = i;
      const errorsFrom = this.scaleFrom(i);
      this.scale = this.currentScale(errorsFrom, i);
      this.refreshVolatility(errorsFrom, i);
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
    const judged = this.volatility.widen(this.scale);
    if (!bandInto(this.band, value, expected, judged, band)) return Number.NaN;
    bandInto(this.inner, value, expected, judged, this.innerModel);
    return expected;
  }

  /** A value's distance from the z-score's mean, scaled as the seasonal band's: ±sensitivity at the edges. */
  private zDeviations(value: number): number {
    const mean = this.range.mean;
    const half = value >= mean ? this.range.upper - mean : mean - this.range.lower;
    return (this.input.band.sensitivity * (value - mean)) / half;
  }

  /** See SECOND_OPINION_SDS: a lone upward exceedance within the z-score's edge is not flagged. */
  private secondOpinion(value: number): void {
    if (!this.volatility.correlated) return;
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
    this.errors.error[j] = (side > 0 ? before.upper! : before.lower!) - before.expected;
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

  private seasonShift(i: number, before: BaselineFit, after: BaselineFit): number {
    return seasonShift(this.input.calendar, LEVEL_BUCKETS[this.input.settings.grain], i, before, after);
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

  private levelAt(i: number, fit: BaselineFit): number {
    const history = { y: this.yAdjusted, usable: this.usable, calendar: this.input.calendar };
    return levelAt(history, fit, i, Math.max(0, i - this.input.settings.training_buckets), this.levelBuffer);
  }

  /** Scale of the one-step prediction errors of [from, i); null (calibrating) while there are too few. */
  private currentScale(from: number, i: number): ErrorScale | null {
    return this.errors.scale(from, i, MIN_ERRORS[this.input.settings.grain], this.scale);
  }

  /**
   * Where the errors that calibrate the band start: the window's, or only those the current
   * seasonal mode made once it has made OWN_ERRORS of them (see there).
   */
  private scaleFrom(i: number): number {
    const { settings } = this.input;
    const from = Math.max(0, i - settings.training_buckets);
    if (this.modeSince <= from) return from;
    const own = this.errors.count(this.modeSince, i);
    return own >= Math.max(OWN_ERRORS, MIN_ERRORS[settings.grain]) ? this.modeSince : from;
  }

  /** `inRun`: a flagged bucket after a flagged one counts at most at chance's edge of the recent level. */
  private recordError(i: number, value: number, expected: number, inRun = false): void {
    this.errors.record(i, value, expected);
    if (this.scale !== null) this.volatility.observe(this.errors.cappedZ2(i, this.scale), inRun);
  }

  /** At a refit: the mean capped squared standardized error of [from, i), and the small-sample factor. */
  private refreshVolatility(from: number, i: number): void {
    if (this.scale === null) return;
    this.volatility.refresh(this.errors.meanCappedZ2(from, i, this.scale), this.errors.lagOneCorrelation(from, i, this.scale));
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
    return chooseSeasonality(y, window, settings.grain, settings.training_buckets, this.wanted).chosen;
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
      this.errors.error[j] = Number.NaN;
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
