// Which holiday calendars exist: the regions date-holidays knows (its data ships in the package).
import Holidays from "date-holidays";

const known = new Holidays();

/** "US", "gb", "DE-BY": an ISO 3166-1 country code, optionally with one of its subdivisions. */
export function isHolidayRegion(code: string): boolean {
  const match = /^([A-Za-z]{2})(?:-([A-Za-z0-9]{1,3}))?$/.exec(code);
  if (!match) return false;
  const country = match[1]!.toUpperCase();
  if (!Object.hasOwn(known.getCountries(), country)) return false;
  if (match[2] === undefined) return true;
  return Object.hasOwn(known.getStates(country) ?? {}, match[2].toUpperCase());
}
