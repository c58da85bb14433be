// seasonality: auto. Picks the seasonal terms the series' own history shows, from one pass over it.
import type { Calendar } from "./calendar.js";
import { robustSdInPlace } from "./mad.js";
import type { SeasonMode } from "./seasonal-baseline.js";
import { medianInPlace } from "./select.js";
import type { Grain } from "./types.js";

/**
 * A seasonal term is kept when its effects are larger than noise could make them: with effects
 * e_p (medians of n_p residuals, centred) and residual robust sd s, the statistic
 * Σ e_p² · n_p / (π/2 · s²) is about χ² with (phases - 1) degrees of freedom when there is no
 * season (π/2: the variance of a median relative to a mean). The threshold is the larger of
 * df + 4·√(2·df) (four standard deviations of that χ²) and 2·df (the term must explain more
 * variance than estimating it adds).
 */
export function seasonalThreshold(df: number): number {
  return Math.max(2 * df, df + 4 * Math.sqrt(2 * df));
}

/**
 * A term the series already has stays while its statistic is above df, the statistic's mean when
 * there is no season: it is admitted on strong evidence and dropped only when the evidence is gone.
 * Without that margin a weekday effect near the threshold came and went from refit to refit, and
 * each change restarted the level (series-run.ts).
 */
function passes(statistic: number, df: number, has: boolean): boolean {
  return statistic > (has ? df : seasonalThreshold(df));
}

export interface SeasonalityEvidence {
  chosen: SeasonMode;
  /** Hour-of-day statistic (hourly only), NaN when not computed. */
  daily: number;
  /** Day-of-week statistic, NaN when not computed. */
  weekly: number;
}

/**
 * Hourly: the hour-of-day test runs on residuals from each day's median; the day-of-week test on
 * day levels off their week's median. Weekly is chosen when its test passes and the
 * training window holds two weeks; else daily when its test passes; else none. Daily: only the
 * day-of-week test (on the values off their week's median), needing three weeks of history.
 * `y` is in the fit space; non-finite entries are skipped.
 */
export function chooseSeasonality(
  y: Float64Array,
  calendar: Calendar,
  grain: Grain,
  trainingBuckets: number,
  current: SeasonMode = "none",
): SeasonalityEvidence {
  const hasWeekly = current === "weekly";
  if (grain === "day") {
    const weekly =
      y.length >= 21 && trainingBuckets >= 14
        ? weekdayStatistic(y, calendar.row.length > 0 ? dayNumbersOfDaily(calendar) : new Float64Array(0))
        : Number.NaN;
    return { chosen: passes(weekly, 6, hasWeekly) ? "weekly" : "none", daily: Number.NaN, weekly };
  }
  const { statistic: daily, dayLevels, dayKeys } = hourOfDayStatistic(y, calendar);
  const dailyPasses = passes(daily, 23, current !== "none");
  const weekly = trainingBuckets >= 14 * 24 && dayKeys.length >= 21 ? weekdayStatistic(dayLevels, dayKeys) : Number.NaN;
  const chosen: SeasonMode = passes(weekly, 6, hasWeekly) ? "weekly" : dailyPasses ? "daily" : "none";
  return { chosen, daily, weekly };
}

/** Daily buckets: the row numbers are weeks, so rebuild day numbers from the weekday. */
function dayNumbersOfDaily(calendar: Calendar): Float64Array {
  const days = new Float64Array(calendar.row.length);
  for (let i = 0; i < days.length; i++) days[i] = calendar.row[i]! * 7 + calendar.dayOfWeek[i]! - 3;
  return days;
}

function hourOfDayStatistic(y: Float64Array, calendar: Calendar): { statistic: number; dayLevels: Float64Array; dayKeys: Float64Array } {
  const n = y.length;
  const scratch = new Float64Array(Math.max(n, 24));
  const residual = new Float64Array(n).fill(Number.NaN);
  const keys: number[] = [];
  // Day medians over days with at least 12 finite hours.
  for (let start = 0; start < n;) {
    let end = start;
    while (end < n && calendar.row[end] === calendar.row[start]) end++;
    let length = 0;
    for (let j = start; j < end; j++) if (Number.isFinite(y[j]!)) scratch[length++] = y[j]!;
    if (length >= 12) {
      const level = medianInPlace(scratch, length);
      for (let j = start; j < end; j++) if (Number.isFinite(y[j]!)) residual[j] = y[j]! - level;
      keys.push(calendar.row[start]!);
    }
    start = end;
  }
  const effects = new Float64Array(24);
  const counts = new Int32Array(24);
  // Counting sort by hour, then one median per hour: O(n).
  const offsets = new Int32Array(25);
  for (let j = 0; j < n; j++) if (Number.isFinite(residual[j]!)) offsets[calendar.hourOfDay[j]! + 1]!++;
  for (let h = 0; h < 24; h++) offsets[h + 1]! += offsets[h]!;
  const byHour = new Float64Array(offsets[24]!);
  const cursor = offsets.slice(0, 24);
  for (let j = 0; j < n; j++) if (Number.isFinite(residual[j]!)) byHour[cursor[calendar.hourOfDay[j]!]!++] = residual[j]!;
  for (let h = 0; h < 24; h++) {
    const length = offsets[h + 1]! - offsets[h]!;
    counts[h] = length;
    effects[h] = length > 0 ? medianInPlace(byHour.subarray(offsets[h], offsets[h + 1]), length) : 0;
  }
  // Day levels with the hour profile removed, for the weekday test.
  const dayLevels = new Float64Array(keys.length);
  let day = 0;
  for (let start = 0; start < n && day < keys.length;) {
    let end = start;
    while (end < n && calendar.row[end] === calendar.row[start]) end++;
    if (calendar.row[start] === keys[day]) {
      let length = 0;
      for (let j = start; j < end; j++) if (Number.isFinite(y[j]!)) scratch[length++] = y[j]! - effects[calendar.hourOfDay[j]!]!;
      dayLevels[day++] = medianInPlace(scratch, length);
    }
    start = end;
  }
  let length = 0;
  for (let j = 0; j < n; j++) if (Number.isFinite(residual[j]!)) scratch[length++] = residual[j]! - effects[calendar.hourOfDay[j]!]!;
  const statistic = chiSquare(effects, counts, length > 0 ? robustSdInPlace(scratch, length) : Number.NaN);
  return { statistic, dayLevels, dayKeys: Float64Array.from(keys) };
}

/**
 * Day-of-week statistic of daily levels (keys = UTC day numbers, ascending) off the median of their
 * Monday-to-Sunday week; only complete weeks count, so every weekday weighs the same in a week's median.
 */
function weekdayStatistic(levels: Float64Array, dayKeys: Float64Array): number {
  const n = levels.length;
  const offWeek = new Float64Array(n).fill(Number.NaN);
  const week = new Float64Array(7);
  // A loop, not Uint8Array.from(dayKeys, fn): that goes through the iterator protocol, an object
  // per element, and this runs at every refit (some 300 MB of garbage in 10 s of a first scan).
  const weekdays = new Uint8Array(n);
  for (let d = 0; d < n; d++) weekdays[d] = (((dayKeys[d]! + 3) % 7) + 7) % 7;
  const weekday = (d: number) => weekdays[d]!;
  for (let d = 0; d + 6 < n; d++) {
    if (weekday(d) !== 0 || dayKeys[d + 6]! - dayKeys[d]! !== 6) continue;
    let length = 0;
    for (let e = d; e < d + 7; e++) if (Number.isFinite(levels[e]!)) week[length++] = levels[e]!;
    if (length < 7) continue;
    const center = medianInPlace(week, 7);
    for (let e = d; e < d + 7; e++) offWeek[e] = levels[e]! - center;
  }
  const effects = new Float64Array(7);
  const counts = new Int32Array(7);
  const byDay = new Float64Array(n);
  for (let w = 0; w < 7; w++) {
    let length = 0;
    for (let d = w; d < n; d++) if (Number.isFinite(offWeek[d]!) && weekday(d) === w) byDay[length++] = offWeek[d]!;
    counts[w] = length;
    effects[w] = length > 0 ? medianInPlace(byDay, length) : 0;
  }
  for (let w = 0; w < 7; w++) if (counts[w]! < 2) return Number.NaN;
  let length = 0;
  for (let d = 0; d < n; d++) if (Number.isFinite(offWeek[d]!)) byDay[length++] = offWeek[d]! - effects[weekday(d)]!;
  return chiSquare(effects, counts, robustSdInPlace(byDay, length));
}

/** Σ (e_p - mean e)² · n_p / (π/2 · s²); infinite when s = 0 but the effects differ. */
function chiSquare(effects: Float64Array, counts: Int32Array, sd: number): number {
  let mean = 0;
  for (const effect of effects) mean += effect / effects.length;
  let sum = 0;
  let spread = 0;
  for (let p = 0; p < effects.length; p++) {
    const centred = effects[p]! - mean;
    sum += centred * centred * counts[p]!;
    spread = Math.max(spread, Math.abs(centred));
  }
  if (!(sd > 0)) return spread > 1e-12 ? Infinity : 0;
  return sum / ((Math.PI / 2) * sd * sd);
}
