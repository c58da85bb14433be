// A daily series too young to test its weekday effect (days 14 to 20): how each bucket is judged.
import { smallSampleFactor } from "./error-volatility.js";
import { MAD_TO_SD } from "./mad.js";
import type { MutableBand } from "./score-bucket.js";
import { medianInPlace } from "./select.js";
import type { Grain } from "./types.js";

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** Week-over-week differences needed to say how close a repeat must be (of the last week's seven). */
const MIN_DIFFERENCES = 4;

/**
 * Days of history before a daily series' weekday effect can be tested (choose-seasonality.ts needs
 * three of every weekday). Until then the seasonal model has no weekday term and few errors, and
 * judged alone it did worse than the peers' z-score on young series (docs/anomaly-eval.md,
 * "Young series"); against a band fitted to a mix of weekdays and weekends, a business whose
 * weekends run at half its weekdays had both weekend days of its third week flagged, every time.
 */
export const WEEKDAY_UNTESTED_DAYS = 21;
/** The z-score's edge: mean ± 3 sds of the last 14 days (Elementary's default, as SECOND_OPINION_SDS). */
export const ZSCORE_SDS = 3;

/**
 * The z-score's edge for an sd from `count` values, widened as every band here is for a scale from
 * few values (the Student-t quantile over the normal one, error-volatility.ts): 3.68 sds from 14
 * values. Unwidened, the young series' anomalies on days 14-20 were found at 0.782 with 0.328
 * false-alarm days a month, widened at 0.744 with 0.191 (docs/anomaly-eval.md, item 10).
 */
export function zScoreSds(count: number): number {
  return ZSCORE_SDS * smallSampleFactor(ZSCORE_SDS, count);
}

/**
 * The week's swing dominates when one value's week-over-week noise is under half the 14-day sd:
 * then most of that sd is the swing between weekdays, and a z-score band that holds the swing is
 * blind to an incident of its size (a weekday outage of a business whose weekends run at 20% of its
 * weekdays: 0 of 50 found, against 50 of 50 by the seasonal band). Half: a series with no weekly
 * pattern gives about 1 (one value's noise both ways), so only a swing that is most of the spread
 * takes the z-score's place (0.7 found 13 of 620 young anomalies fewer, docs/anomaly-eval.md item 10).
 */
export const SWING_RATIO = 0.5;

export type YoungJudge = "z-score" | "seasonal";

/** What one pass over a series (series-run.ts) asks about its young daily buckets. */
export class YoungDaily {
  private firstStart: number | null = null;
  /** The week-over-week statistic judgeOf read, for absorbRepeat at the same bucket. */
  private week: { i: number; stat: WeekOverWeek } | null = null;

  constructor(
    private readonly grain: Grain,
    private readonly input: RepeatInput,
  ) {}

  /** Bucket i has a value: the series' age counts from the first such. */
  seen(i: number): void {
    this.firstStart ??= this.input.starts[i]!;
  }

  /**
   * Who judges bucket i (youngJudge), or null: at hour grain (a week is assumed there from the
   * start), once the fit has a weekday term, or from WEEKDAY_UNTESTED_DAYS on.
   */
  judgeOf(i: number, fitWeekly: boolean, rangeSd: number): YoungJudge | null {
    if (this.grain !== "day" || fitWeekly || this.firstStart === null) return null;
    if (this.input.starts[i]! - this.firstStart >= WEEKDAY_UNTESTED_DAYS * DAY_MS) return null;
    return youngJudge(this.weekAt(i), rangeSd);
  }

  /**
   * A bucket out of `band` (on `side`) that repeats the same weekday of the two weeks before
   * (weeklyRepeat): the band takes in what repeats, so the value lies inside what it was judged
   * against, and it is no longer out. Returns whether it was a repeat.
   */
  absorbRepeat(i: number, band: MutableBand, inner: MutableBand, expected: number, side: number): boolean {
    const half = side > 0 ? band.upper - expected : expected - band.lower;
    const edges = { side, half, innerLower: inner.lower, innerUpper: inner.upper };
    const repeat = weeklyRepeat(i, this.input, edges, this.weekAt(i));
    if (repeat === null) return false;
    band.lower = Math.min(band.lower, repeat.lower);
    band.upper = Math.max(band.upper, repeat.upper);
    band.side = 0;
    return true;
  }

  private weekAt(i: number): WeekOverWeek {
    if (this.week?.i !== i) this.week = { i, stat: weekOverWeek(i, this.input) };
    return this.week.stat;
  }
}

export interface RepeatEdges {
  /** The lowest and highest values that repeat both earlier weeks within the band's half-width. */
  lower: number;
  upper: number;
}

export interface RepeatInput {
  values: readonly number[];
  /** One per UTC day at most (daily buckets). */
  starts: readonly number[];
  /** 1 where a bucket trained (finite, not flagged). */
  usable: Uint8Array;
  sensitivity: number;
}

/**
 * Who judges young daily bucket i: the z-score (mean ± ZSCORE_SDS sds of the last 14 days, the
 * range check's window), unless the week's swing dominates (SWING_RATIO) or the 14 days have no
 * spread (`rangeSd` not positive): then the seasonal band, with the week's repeats not flagged
 * (weeklyRepeat). Too few week-over-week differences to tell: the z-score.
 */
export function youngJudge(week: WeekOverWeek, rangeSd: number): YoungJudge {
  if (!(rangeSd > 0)) return "seasonal";
  return week.count >= MIN_DIFFERENCES && week.sd < SWING_RATIO * rangeSd ? "seasonal" : "z-score";
}

/** The bucket's band: its half-width on the side it left, and the inner band (the pair rule's). */
export interface RepeatBand {
  /** +1 above, -1 below. */
  side: number;
  half: number;
  innerLower: number;
  innerUpper: number;
}

/**
 * Whether bucket i repeats the same weekday one and two weeks before: then it is the week's
 * pattern, not an incident, and it is not flagged. Both weeks must show the pattern: each was
 * beyond this bucket's inner band on the same side (the weekday differs from the rest of the week
 * every week, not by chance once), and the bucket is within a week-over-week model's tolerance of
 * each: the robust sd of the last week's differences from the week before, times the sensitivity
 * widened for so few differences (error-volatility.ts), never more than the band's half-width.
 * Both must have trained, so a flagged bucket never vouches for the next. An outage (a weekday at
 * 0, a weekend at 0 where it had half the weekdays' rows) is far from both and stays flagged.
 * Returns the interval of values that would repeat (reported as the band), or null.
 */
export function weeklyRepeat(i: number, input: RepeatInput, band: RepeatBand, week: WeekOverWeek): RepeatEdges | null {
  const { values, starts, usable } = input;
  const value = values[i]!;
  if (!(band.half > 0) || !Number.isFinite(value)) return null;
  const tolerance = Math.min(band.half, weekOverWeekTolerance(week, input.sensitivity));
  if (!(tolerance > 0)) return null;
  let lower = -Infinity;
  let upper = Infinity;
  for (const weeks of [1, 2]) {
    const j = indexOfStart(starts, i, starts[i]! - weeks * WEEK_MS);
    if (j < 0 || usable[j] !== 1) return null;
    const before = values[j]!;
    if (!Number.isFinite(before) || Math.abs(value - before) > tolerance) return null;
    if (band.side > 0 ? !(before > band.innerUpper) : !(before < band.innerLower)) return null;
    lower = Math.max(lower, before - tolerance);
    upper = Math.min(upper, before + tolerance);
  }
  return { lower, upper };
}

/** One value's noise if the week repeats, and how many week-over-week differences it is from. */
export interface WeekOverWeek {
  sd: number;
  count: number;
}

/**
 * The week before bucket i: 1.4826 × median |y_j − y_(j − 7 days)| / √2 over the pairs that both
 * trained (NaN with none).
 */
export function weekOverWeek(i: number, input: RepeatInput): WeekOverWeek {
  const { values, starts, usable } = input;
  const differences = new Float64Array(7);
  let count = 0;
  for (let j = i - 1; j >= 0 && starts[j]! > starts[i]! - WEEK_MS; j--) {
    const k = indexOfStart(starts, j, starts[j]! - WEEK_MS);
    if (k < 0 || usable[j] !== 1 || usable[k] !== 1) continue;
    const d = values[j]! - values[k]!;
    if (Number.isFinite(d)) differences[count++] = Math.abs(d);
  }
  return { sd: count === 0 ? Number.NaN : (MAD_TO_SD * medianInPlace(differences, count)) / Math.SQRT2, count };
}

/** k' × √2 × the week-over-week sd (the sd of a difference), k' the sensitivity widened for so few. */
function weekOverWeekTolerance(week: WeekOverWeek, sensitivity: number): number {
  if (week.count < MIN_DIFFERENCES) return Number.NaN;
  return sensitivity * smallSampleFactor(sensitivity, week.count) * Math.SQRT2 * week.sd;
}

/** The index before i whose start is `start`, or -1 (at most one bucket a day: a short walk back). */
function indexOfStart(starts: readonly number[], i: number, start: number): number {
  for (let j = i - 1; j >= 0 && starts[j]! >= start; j--) if (starts[j] === start) return j;
  return -1;
}
