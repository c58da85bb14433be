// Buckets that neither train nor alarm: a country's public holidays and planned exclusions
// (a migration, a known outage). Pure: bucket starts and settings in, start -> reason out.
import { publicHolidays, type HolidayDays } from "./holidays.js";
import type { Grain } from "./types.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const STEP_MS: Record<Grain, number> = { hour: HOUR_MS, day: DAY_MS };

/** A planned exclusion: [from, to) as ISO 8601 timestamps, and why. */
export interface Exclusion {
  from: string;
  to: string;
  reason: string;
}

export interface ExclusionSettings {
  /** ISO 3166 country ("US") or country-subdivision ("DE-BY") whose public holidays are excluded; null: none */
  holidays?: string | null;
  exclude?: readonly Exclusion[];
}

/**
 * Bucket start (epoch ms) -> why it is excluded, for the buckets of one series:
 * - a public holiday of `holidays` excludes, at day grain, the day bucket of its date (day buckets
 *   are UTC days); at hour grain, the hours it lasts in the region's own time zone (Christmas in
 *   New York is 05:00 to 05:00 UTC) ("holiday: Christmas Day");
 * - an exclusion excludes every bucket [start, start + grain) that overlaps its [from, to) (its reason).
 * A bucket excluded twice carries both reasons, joined by "; ". Empty when nothing applies.
 */
export function excludedStarts(starts: readonly number[], grain: Grain, settings: ExclusionSettings): Map<number, string> {
  const out = new Map<number, string>();
  const exclusions = (settings.exclude ?? []).map((e) => ({ from: Date.parse(e.from), to: Date.parse(e.to), reason: e.reason }));
  const region = settings.holidays ?? null;
  if (starts.length === 0 || (region === null && exclusions.length === 0)) return out;
  const holidays = region === null ? [] : holidaysOver(region, starts);
  const days = grain === "day" ? holidayDays(holidays) : null;
  const step = STEP_MS[grain];
  for (const start of starts) {
    const reasons: string[] = [];
    const holiday = days ? days.get(Math.floor(start / DAY_MS)) : holidayHours(holidays, start, start + step);
    if (holiday !== undefined) reasons.push(`holiday: ${holiday}`);
    for (const e of exclusions) if (start < e.to && start + step > e.from) reasons.push(e.reason);
    if (reasons.length > 0) out.set(start, reasons.join("; "));
  }
  return out;
}

/** The region's public holidays that can touch the series' buckets (a day either side of them). */
function holidaysOver(region: string, starts: readonly number[]): HolidayDays[] {
  let first = Infinity;
  let last = -Infinity;
  for (const start of starts) {
    if (start < first) first = start;
    if (start > last) last = start;
  }
  const holidays: HolidayDays[] = [];
  // A holiday of the year before can run into the first days of the series (a multi-day one),
  // and one of the next can begin, in its own time zone, on the last UTC day of a year.
  for (let year = new Date(first).getUTCFullYear() - 1; year <= new Date(last).getUTCFullYear() + 1; year++)
    for (const holiday of publicHolidays(region, year))
      if (holiday.to > first - DAY_MS && holiday.from < last + 2 * DAY_MS) holidays.push(holiday);
  return holidays;
}

/** Names of several holidays at once, each once: "New Year's Day, Sunday". */
function addName(before: string | undefined, name: string): string {
  return before === undefined ? name : before.split(", ").includes(name) ? before : `${before}, ${name}`;
}

/** UTC epoch day -> the names of its public holidays. */
function holidayDays(holidays: readonly HolidayDays[]): Map<number, string> {
  const days = new Map<number, string>();
  for (const holiday of holidays)
    for (let d = holiday.day; d < holiday.day + holiday.days; d++) days.set(d, addName(days.get(d), holiday.name));
  return days;
}

/** The names of the holidays overlapping [from, to) in the region's own time, if any. */
function holidayHours(holidays: readonly HolidayDays[], from: number, to: number): string | undefined {
  let names: string | undefined;
  for (const holiday of holidays) if (from < holiday.to && to > holiday.from) names = addName(names, holiday.name);
  return names;
}
