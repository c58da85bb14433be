// Time buckets in SQL that means the same on ClickHouse 18.16 and 26.x, whatever the server's
// time zone: buckets are whole multiples of the grain in unix seconds (UTC), computed with
// integer arithmetic (no toStartOfDay/toStartOfHour, whose time-zone argument and defaults
// differ between versions), and ranges compare the column with constants of its own type, so
// the table's sort key still prunes.
import type { AnomalyGrain } from "../catalog/types.js";
import { GRAIN_SECONDS } from "../catalog/types.js";
import { baseType, isNumberType } from "./column-types.js";

/**
 * How a timestamp column counts time:
 * - datetime: DateTime / DateTime64 (an instant);
 * - date: Date / Date32 (a whole UTC day: no hours to bucket by);
 * - number: unix seconds (as toDateTime reads a number).
 */
export type TimeKind = "datetime" | "date" | "number";

export const DAY_SECONDS = 86_400;

/** The column's time kind, or null when it holds no time (a String, say). */
export function timeKindOf(type: string): TimeKind | null {
  const base = baseType(type);
  if (/^DateTime(64)?(\(.*\))?$/.test(base)) return "datetime";
  if (/^Date(32)?$/.test(base)) return "date";
  return isNumberType(type) ? "number" : null;
}

/** Unix seconds of a value of the column (the start of the day for a Date). */
export function secondsSql(column: string, kind: TimeKind): string {
  switch (kind) {
    case "datetime":
      return `toUInt32(toDateTime(${column}))`;
    case "date":
      // toInt64 of a Date is its day number on both versions; toDateTime(date) would depend on the server's time zone.
      return `(toInt64(${column}) * ${DAY_SECONDS})`;
    case "number":
      return `toInt64(${column})`;
  }
}

/** The start (unix seconds, UTC) of the bucket a row falls in. */
export function bucketSql(column: string, kind: TimeKind, grain: AnomalyGrain): string {
  if (kind === "date") return secondsSql(column, kind);
  const size = GRAIN_SECONDS[grain];
  return `(intDiv(${secondsSql(column, kind)}, ${size}) * ${size})`;
}

const isoDay = (seconds: number): string => new Date(seconds * 1000).toISOString().slice(0, 10);

/** One bound of a range, as a constant of the column's own type (so the index applies). */
function bound(kind: TimeKind, seconds: number): string {
  switch (kind) {
    case "datetime":
      return `toDateTime(${Math.floor(seconds)})`;
    case "date":
      return `toDate('${isoDay(seconds)}')`;
    case "number":
      return String(Math.floor(seconds));
  }
}

/** `column` in [start, end): whole days for a Date (start and end are then multiples of a day). */
export function timeRangeSql(column: string, kind: TimeKind, start: number, end: number): string {
  return `${column} >= ${bound(kind, start)} AND ${column} < ${bound(kind, end)}`;
}

/** `column` at or after `start`, and not past `now() + skew` (future-dated rows are timestamp_not_future's). */
export function recentSql(column: string, kind: TimeKind, start: number, skewSeconds: number): string {
  const upper = kind === "datetime" ? `now() + ${skewSeconds}` : kind === "date" ? "today()" : `toInt64(toUInt32(now())) + ${skewSeconds}`;
  return `${column} >= ${bound(kind, start)} AND ${column} <= ${upper}`;
}

/**
 * The instant up to which a row's timestamp covers time: the end of its day for a Date (rows of
 * today's date cover today so far), the timestamp itself otherwise.
 */
export function coveredUntil(kind: TimeKind, newest: number): number {
  return kind === "date" ? newest + DAY_SECONDS : newest;
}
