// Buckets that neither train nor alarm: a country's public holidays and planned exclusions
// (a migration, a known outage). Pure: bucket starts and settings in, start -> reason out.
import { publicHolidays } from "./holidays.js";
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
 * - a public holiday of `holidays` excludes its UTC date: the day bucket, or every hour bucket of
 *   that date ("holiday: Christmas Day");
 * - an exclusion excludes every bucket [start, start + grain) that overlaps its [from, to) (its reason).
 * A bucket excluded twice carries both reasons, joined by "; ". Empty when nothing applies.
 */
export function excludedStarts(starts: readonly number[], grain: Grain, settings: ExclusionSettings): Map<number, string> {
  const out = new Map<number, string>();
  const exclusions = (settings.exclude ?? []).map((e) => ({ from: Date.parse(e.from), to: Date.parse(e.to), reason: e.reason }));
  const region = settings.holidays ?? null;
  if (starts.length === 0 || (region === null && exclusions.length === 0)) return out;
  const holidays = region === null ? null : holidayDays(region, starts);
  const step = STEP_MS[grain];
  for (const start of starts) {
    const reasons: string[] = [];
    const holiday = holidays?.get(Math.floor(start / DAY_MS));
    if (holiday !== undefined) reasons.push(`holiday: ${holiday}`);
    for (const e of exclusions) if (start < e.to && start + step > e.from) reasons.push(e.reason);
    if (reasons.length > 0) out.set(start, reasons.join("; "));
  }
  return out;
}

/** UTC epoch day -> the names of its public holidays, over the years the series spans. */
function holidayDays(region: string, starts: readonly number[]): Map<number, string> {
  let first = Infinity;
  let last = -Infinity;
  for (const start of starts) {
    if (start < first) first = start;
    if (start > last) last = start;
  }
  const days = new Map<number, string>();
  // A holiday of the year before can run into the first days of the series (a multi-day one).
  for (let year = new Date(first).getUTCFullYear() - 1; year <= new Date(last).getUTCFullYear(); year++) {
    for (const holiday of publicHolidays(region, year)) {
      for (let d = holiday.day; d < holiday.day + holiday.days; d++) {
        const before = days.get(d);
        if (before === undefined) days.set(d, holiday.name);
        else if (!before.split(", ").includes(holiday.name)) days.set(d, `${before}, ${holiday.name}`);
      }
    }
  }
  return days;
}
