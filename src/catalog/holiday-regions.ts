// Which holiday calendars exist: the regions date-holidays knows (its data ships in the package).
// Loaded on the first region asked about: its rules cost some 8 MB of heap (20 MB resident), a
// price a catalogue without `anomalies.holidays` should not pay.
import { createRequire } from "node:module";
import type Holidays from "date-holidays";

let known: Holidays | undefined;
const calendars = () => (known ??= new (createRequire(import.meta.url)("date-holidays") as typeof Holidays)());

/** "US", "gb", "DE-BY": an ISO 3166-1 country code, optionally with one of its subdivisions. */
export function isHolidayRegion(code: string): boolean {
  const match = /^([A-Za-z]{2})(?:-([A-Za-z0-9]{1,3}))?$/.exec(code);
  if (!match) return false;
  const country = match[1]!.toUpperCase();
  if (!Object.hasOwn(calendars().getCountries(), country)) return false;
  if (match[2] === undefined) return true;
  return Object.hasOwn(calendars().getStates(country) ?? {}, match[2].toUpperCase());
}
