// A young daily series' weekly pattern, before the weekday term can be tested.
import { smallSampleFactor } from "./error-volatility.js";
import { MAD_TO_SD } from "./mad.js";
import { medianInPlace } from "./select.js";

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** Week-over-week differences needed to say how close a repeat must be (of the last week's seven). */
const MIN_DIFFERENCES = 4;

/**
 * Days of history before a daily series' weekday effect can be tested (choose-seasonality.ts needs
 * three of every weekday). Until then the series is judged without it, against a band fitted to a
 * mix of its weekdays and weekends: a business whose weekends run at half its weekdays had both
 * weekend days of its third week flagged, every time (50 of 50 such series, none after day 21).
 */
export const WEEKDAY_UNTESTED_DAYS = 21;

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
export function weeklyRepeat(i: number, input: RepeatInput, band: RepeatBand): RepeatEdges | null {
  const { values, starts, usable } = input;
  const value = values[i]!;
  if (!(band.half > 0) || !Number.isFinite(value)) return null;
  const tolerance = Math.min(band.half, weekOverWeekTolerance(i, input));
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

/** k' × 1.4826 × median |y_j − y_(j−7 days)| over the week before bucket i; NaN with too few. */
function weekOverWeekTolerance(i: number, input: RepeatInput): number {
  const { values, starts, usable } = input;
  const differences = new Float64Array(7);
  let m = 0;
  for (let j = i - 1; j >= 0 && starts[j]! > starts[i]! - WEEK_MS; j--) {
    const k = indexOfStart(starts, j, starts[j]! - WEEK_MS);
    if (k < 0 || usable[j] !== 1 || usable[k] !== 1) continue;
    const d = values[j]! - values[k]!;
    if (Number.isFinite(d)) differences[m++] = Math.abs(d);
  }
  if (m < MIN_DIFFERENCES) return Number.NaN;
  const k = input.sensitivity * smallSampleFactor(input.sensitivity, m);
  return k * MAD_TO_SD * medianInPlace(differences, m);
}

/** The index before i whose start is `start`, or -1 (at most one bucket a day: a short walk back). */
function indexOfStart(starts: readonly number[], i: number, start: number): number {
  for (let j = i - 1; j >= 0 && starts[j]! >= start; j--) if (starts[j] === start) return j;
  return -1;
}
