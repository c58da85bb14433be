// The one cheap query per (table, timestamp) that anomaly series start from: the server's
// clock, the newest row (not future-dated), and the gaps between the table's rows as a
// histogram in whole minutes (gap length -> how often), over the window its tests look back.
// - The gaps are the table's loading cadence for freshness_anomaly.
// - The newest row says which buckets are complete (see seriesSpan).
// The histogram is computed in ClickHouse with linear array functions, so what travels is at
// most a few hundred distinct gap lengths (they sum to the window) whatever the table's size.
import { CLOCK_SKEW_SECONDS } from "../infer/clock-skew.js";
import { quoteTable } from "../sql/identifiers.js";
import { timeSql } from "../sql/value-expr.js";
import { recentSql, secondsSql, type TimeKind } from "./series-time.js";

export interface CadenceTarget {
  table: string;
  /** timestamp column (unquoted) or expression */
  timestamp: string;
  kind: TimeKind;
}

/** What the cadence query found. */
export interface Cadence {
  /** the server's clock, unix seconds */
  now: number;
  /** rows in the window (timestamps at most now() + skew) */
  rows: number;
  /** newest timestamp in the window, unix seconds; null without rows */
  newest: number | null;
  /** oldest timestamp in the window: a table younger than the window has no history before it */
  oldest: number | null;
  /** [gap in minutes, how many times], ascending */
  gaps: [number, number][];
}

export function cadenceQuery(target: CadenceTarget, windowStart: number): string {
  const column = timeSql(target.timestamp);
  const t = secondsSql(column, target.kind);
  const rows = `SELECT ${t} AS t FROM ${quoteTable(target.table)} WHERE ${recentSql(column, target.kind, windowStart, CLOCK_SKEW_SECONDS)}`;
  // g: the sorted gaps between distinct minutes with rows; starts: where each run of equal gaps begins.
  const gaps = "arraySort(arrayFilter(x -> x > 0, arrayDifference(arraySort(groupUniqArray(intDiv(t, 60))))))";
  const inner = `SELECT toUInt32(now()) AS server_now, count() AS rows, max(t) AS newest, min(t) AS oldest, ${gaps} AS g FROM (${rows})`;
  const runs = `SELECT server_now, rows, newest, oldest, g, arrayFilter((i, d) -> d != 0 OR i = 1, arrayEnumerate(g), arrayDifference(g)) AS starts FROM (${inner})`;
  return (
    "SELECT server_now, rows, newest, oldest, arrayMap(i -> g[i], starts) AS gap_minutes, " +
    `arrayPopFront(arrayDifference(arrayConcat(starts, [toUInt32(length(g) + 1)]))) AS gap_counts FROM (${runs})`
  );
}

/** ClickHouse renders UInt64 (and arrays of it) as strings. */
const num = (value: unknown): number | null => {
  if (value === null || value === undefined || value === "") return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
};

export function parseCadence(row: Record<string, unknown> | undefined): Cadence | null {
  if (!row) return null;
  const now = num(row.server_now);
  const rows = num(row.rows);
  if (now === null || rows === null) return null;
  const minutes = Array.isArray(row.gap_minutes) ? row.gap_minutes.map(num) : [];
  const counts = Array.isArray(row.gap_counts) ? row.gap_counts.map(num) : [];
  const gaps: [number, number][] = [];
  minutes.forEach((m, i) => {
    const c = counts[i];
    if (m !== null && c !== null && c !== undefined && m > 0 && c > 0) gaps.push([m, c]);
  });
  return { now, rows, newest: rows > 0 ? num(row.newest) : null, oldest: rows > 0 ? num(row.oldest) : null, gaps };
}

/**
 * How long the table usually goes without a new row, in seconds: the gap length that covers 90%
 * of the time spanned by gaps (each gap weighted by its length). A nightly 7-hour pause of a
 * shop's orders is usual; a single 3-day outage in 8 weeks is not. 0 without gaps.
 */
export function usualGapSeconds(gaps: readonly [number, number][], share = 0.9): number {
  let total = 0;
  for (const [minutes, count] of gaps) total += minutes * count;
  if (total === 0) return 0;
  let covered = 0;
  for (const [minutes, count] of gaps) {
    covered += minutes * count;
    if (covered >= share * total) return minutes * 60;
  }
  return gaps[gaps.length - 1]![0] * 60;
}

/** The gaps as seconds, one entry per gap (at most `limit`, thinned evenly): the method's input. */
export function gapSeconds(gaps: readonly [number, number][], limit = 20_000): number[] {
  let total = 0;
  for (const [, count] of gaps) total += count;
  const keep = Math.min(1, limit / Math.max(1, total));
  const out: number[] = [];
  for (const [minutes, count] of gaps) {
    const n = keep === 1 ? count : Math.max(1, Math.round(count * keep));
    for (let i = 0; i < n; i++) out.push(minutes * 60);
  }
  return out;
}
