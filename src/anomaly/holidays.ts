// Public holidays of a country (or one of its subdivisions) from date-holidays, an offline
// calendar maintained upstream: no network, the rules ship in the package. Kept per region and
// year, since every scan asks again for the same few. The package is loaded on the first use
// (some 8 MB of heap that a catalogue without holidays does not need).
import { createRequire } from "node:module";
import type Holidays from "date-holidays";

let HolidaysClass: typeof Holidays | undefined;
const holidaysClass = () => (HolidaysClass ??= createRequire(import.meta.url)("date-holidays") as typeof Holidays);

const DAY_MS = 86_400_000;

/**
 * One public holiday as whole UTC days (`day` the epoch day of its date, `days` how many it
 * lasts), and as the instants it starts and ends in the region's own time zone (epoch ms).
 */
export interface HolidayDays {
  day: number;
  days: number;
  from: number;
  to: number;
  name: string;
}

const cache = new Map<string, readonly HolidayDays[]>();

/**
 * The public holidays (type "public" only: no bank, school, optional days or observances) of
 * `region` in `year`: an ISO 3166-1 country code ("US") or a country and subdivision ("DE-BY").
 * A region date-holidays does not know gives none (the catalogue rejects it before).
 */
export function publicHolidays(region: string, year: number): readonly HolidayDays[] {
  const key = `${region}|${year}`;
  const held = cache.get(key);
  if (held) return held;
  const [country, state] = region.toUpperCase().split("-", 2);
  const Calendar = holidaysClass();
  const calendar = state ? new Calendar(country!, state, { languages: ["en"] }) : new Calendar(country!, { languages: ["en"] });
  const days: HolidayDays[] = [];
  for (const holiday of calendar.getHolidays(year, "en") ?? []) {
    if (holiday.type !== "public") continue;
    // The local date as a UTC day: "2026-12-25 00:00:00" is 2026-12-25 wherever the data lives.
    const day = Math.floor(Date.parse(`${holiday.date.slice(0, 10)}T00:00:00Z`) / DAY_MS);
    if (!Number.isFinite(day)) continue;
    const span = (holiday.end.getTime() - holiday.start.getTime()) / DAY_MS;
    days.push({ day, days: Math.max(1, Math.round(span)), from: holiday.start.getTime(), to: holiday.end.getTime(), name: holiday.name });
  }
  cache.set(key, days);
  return days;
}
