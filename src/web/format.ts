// How times, durations and counts read on the pages. Pure: `now` is always passed in.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const toDate = (value: Date | string): Date => (typeof value === "string" ? new Date(value) : value);

/** "just now", "5 min ago", "3 h ago", "2 days ago"; a time ahead of `now` (clock skew) reads "just now". */
export function age(value: Date | string, now: Date): string {
  const ms = now.getTime() - toDate(value).getTime();
  if (ms < MINUTE) return "just now";
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min ago`;
  if (ms < 2 * DAY) return `${Math.floor(ms / HOUR)} h ago`;
  return `${Math.floor(ms / DAY)} days ago`;
}

/** "850 ms", "12.3 s", "4 min 5 s", "2 h 3 min". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < MINUTE) return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min ${Math.floor((ms % MINUTE) / 1000)} s`;
  return `${Math.floor(ms / HOUR)} h ${Math.floor((ms % HOUR) / MINUTE)} min`;
}

/** "2024-05-01 10:00 UTC": the pages are read across time zones, so one zone, named. */
export function utc(value: Date | string): string {
  return `${toDate(value).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** "1,234,567" */
export const count = (n: number): string => n.toLocaleString("en-US");

/** "1 test", "3 tests" */
export const plural = (n: number, one: string, many = `${one}s`): string => `${count(n)} ${n === 1 ? one : many}`;
