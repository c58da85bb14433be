// freshness_anomaly learns when new rows LAND, not how dense their event times are: at each scan
// the daemon looks at what a table holds (its newest row; on MergeTree tables also its active
// parts' rows and fingerprint) and, when that grew, records a load at the time it was seen. The
// gaps between loads are the cadence the rule judges the time since the last load against.
// Pure: the scan passes what it read and the history the store kept; the store keeps the changes.
// - A load: the newest row moved forward, or (MergeTree) the rows of the active parts grew. A
//   merge, a mutation or TTL rewrites parts without adding rows: no load. On a MergeTree table
//   the newest row only counts when the parts changed too, so future-dated rows sliding into the
//   `now() + skew` window as the clock moves are no load, while a full refresh with as many rows
//   (TRUNCATE and INSERT, newer rows) is.
// - When: the parts' newest modification time when it lies between the last load and now (a
//   merge since then only moves it later, never before the insert), else the scan's clock.
// - The first sight of a table is no load (its rows landed some time before); a table loaded once
//   is never judged, and nothing is guessed from event times while fewer than 5 loads are seen.
import { freshnessVerdict, MIN_LOADS } from "../anomaly/freshness-cadence.js";
import type { InferredTest } from "../infer/types.js";
import { formatDuration } from "./format.js";
import { notApplicable, notEvaluated } from "./observe.js";
import type { CheckObservation } from "./types.js";

/** Recent loads the cadence's median and spread are learnt from (store/arrival-store.ts keeps them). */
export const RECENT_LOADS = 200;
/** Older loads kept after a long gap (the longest ones), so a 5-minute loader still knows its weekends. */
export const LONG_GAPS_KEPT = 20;

/** What a scan sees of a table: its newest row (unix seconds) and, on MergeTree, its active parts. */
export interface TableSignal {
  /** newest timestamp not in the future (cadence query), null without rows in the window */
  newest: number | null;
  /** MergeTree: rows of the active parts, their fingerprint and newest modification time (unix seconds) */
  parts: { rows: number; fingerprint: string; modified: number } | null;
}

/** What the store keeps per series (`datasource|table|timestamp column`), written only when it changes. */
export interface LoadState {
  series: string;
  /** when the daemon first saw the table, unix seconds */
  first_seen: number;
  newest: number | null;
  rows: number | null;
  parts: string | null;
  /** loads seen since first_seen */
  loads: number;
  /** when the last load was seen, unix seconds */
  last_load: number | null;
}

/**
 * A load, with the gap since the one before (null for the first one seen) and how much earlier
 * it may have landed: 0 when the parts' modification time dates it, else the time since the
 * scan before (a load every 5 minutes seen by scans every 2 reads as gaps of 4 and 6 minutes).
 */
export interface LoadArrival {
  at: number;
  gap: number | null;
  slack: number;
}

export interface LoadHistory {
  state: LoadState;
  /** the kept loads (the recent ones and the older long gaps), oldest first */
  arrivals: LoadArrival[];
}

/** What one scan changes for one series: the new state, and the load it saw (if any). */
export interface LoadChange {
  state: LoadState;
  arrival: LoadArrival | null;
}

const sameState = (a: LoadState, b: LoadState) => a.newest === b.newest && a.rows === b.rows && a.parts === b.parts;

/** Did rows land since `before`? Pure comparison of two sightings (see the file's comment). */
export function isLoad(before: Pick<LoadState, "newest" | "rows" | "parts">, signal: TableSignal): boolean {
  const newer = signal.newest !== null && (before.newest === null || signal.newest > before.newest);
  const parts = signal.parts;
  if (parts === null || before.rows === null || before.parts === null) return newer;
  return parts.rows > before.rows || (newer && parts.fingerprint !== before.parts);
}

/**
 * The series' history after this scan's sighting at `now` (unix seconds, the scan's clock), and
 * the change to store (null when nothing changed).
 */
export function seeLoads(
  series: string,
  history: LoadHistory | undefined,
  signal: TableSignal,
  now: number,
  previousScan: number | null = null,
): { history: LoadHistory; change: LoadChange | null } {
  const sighting = { newest: signal.newest, rows: signal.parts?.rows ?? null, parts: signal.parts?.fingerprint ?? null };
  if (!history) {
    const state: LoadState = { series, first_seen: now, ...sighting, loads: 0, last_load: null };
    return { history: { state, arrivals: [] }, change: { state, arrival: null } };
  }
  const before = history.state;
  const next: LoadState = { ...before, ...sighting };
  if (!isLoad(before, signal)) {
    if (sameState(before, next)) return { history, change: null };
    return { history: { state: next, arrivals: history.arrivals }, change: { state: next, arrival: null } };
  }
  const since = before.last_load ?? before.first_seen;
  const modified = signal.parts?.modified;
  // The same second as the last sighting counts (clocks tick in seconds); never the last load's.
  const dated = modified !== undefined && modified >= since && modified <= now && modified !== before.last_load;
  const at = dated ? modified : now;
  if (before.last_load !== null && at <= before.last_load) {
    // A clock that went back: keep the sighting, count no load.
    return { history: { state: next, arrivals: history.arrivals }, change: { state: next, arrival: null } };
  }
  const slack = dated || previousScan === null ? 0 : Math.max(0, Math.min(at - previousScan, at - since));
  const arrival: LoadArrival = { at, gap: before.last_load === null ? null : at - before.last_load, slack };
  const state: LoadState = { ...next, loads: before.loads + 1, last_load: at };
  return { history: { state, arrivals: [...history.arrivals, arrival] }, change: { state, arrival } };
}

/** A series' loads as the rule judges them at `now`; null when the scan kept no history (a one-off CLI scan). */
export interface LoadView {
  history: LoadHistory | null;
  now: number;
}

/**
 * The gaps between `arrivals` (oldest first), each moved toward the usual gap as far as the
 * loads' slack allows: loads every 5 minutes seen by 2-minute scans read 4 and 6 minutes apart,
 * a 5-minute cadence, not a spread of +-20% that would leave a stopped loader unflagged for 3
 * intervals. The usual gap: the mean of the gaps the median one is within the slack of (so the
 * scans' rounding cancels out, and nights and weekends stay out of it).
 */
export function settledGaps(arrivals: readonly LoadArrival[]): number[] {
  const spans: { gap: number; low: number; high: number }[] = [];
  for (let i = 1; i < arrivals.length; i++) {
    const { gap, slack } = arrivals[i]!;
    if (gap === null || gap <= 0) continue;
    spans.push({ gap, low: Math.max(1, gap - slack), high: gap + arrivals[i - 1]!.slack });
  }
  if (spans.length === 0) return [];
  const sorted = spans.map((s) => s.gap).sort((a, b) => a - b);
  const median = sorted[sorted.length >> 1]!;
  const near = spans.filter((s) => s.low <= median && median <= s.high);
  const usual = near.reduce((sum, s) => sum + s.gap, 0) / near.length;
  return spans.map((s) => Math.min(s.high, Math.max(s.low, usual)));
}

/**
 * freshness_anomaly: the time since the last load against the gaps between loads (the recent
 * ones for the usual gap and its spread; those in the check's window for nights and weekends).
 */
export function observeLoads(test: InferredTest, view: LoadView | undefined): CheckObservation {
  const probe = test.probe;
  if (probe.type !== "load_cadence") return notEvaluated("not a freshness_anomaly check");
  const history = view?.history ?? null;
  const loads = history?.arrivals.length ?? 0;
  const learning = `learning the load cadence, ${Math.min(loads, MIN_LOADS)} of ${MIN_LOADS} loads seen`;
  if (!view || history === null || history.state.last_load === null || loads < MIN_LOADS) return notApplicable(learning);
  const { state, arrivals } = history;
  const now = view.now;
  const recent = settledGaps(arrivals.slice(-RECENT_LOADS - 1));
  const windowStart = now - probe.window_seconds;
  const inWindow = arrivals.filter((a) => a.at >= windowStart && a.gap !== null).map((a) => a.gap!);
  const firstInWindow = Math.max(windowStart, state.first_seen);
  const spanSeconds = Math.max(0, state.last_load! - firstInWindow);
  const since = Math.max(0, now - state.last_load!);
  const verdict = freshnessVerdict(recent, since, probe.sensitivity, { gaps: inWindow, spanSeconds });
  if (verdict.kind === "insufficient_history") return notApplicable(learning);
  const message =
    `last load seen ${formatDuration(since)} ago; ` +
    `loads usually land every ${formatDuration(Math.round(verdict.expected_gap))}, stale after ${formatDuration(Math.round(verdict.upper))}`;
  return { outcome: "measured", rows_affected: verdict.stale ? 1 : 0, rows_total: 1, message };
}

/**
 * A history with one scan's change applied and bounded as the store bounds it (the newest
 * RECENT_LOADS loads, and of the older ones those after the LONG_GAPS_KEPT longest gaps), so a
 * replica can keep its histories in memory across its own scans.
 */
export function applyLoadChange(history: LoadHistory | undefined, change: LoadChange): LoadHistory {
  const arrivals = change.arrival ? [...(history?.arrivals ?? []), change.arrival] : (history?.arrivals ?? []);
  if (arrivals.length <= RECENT_LOADS + LONG_GAPS_KEPT) return { state: change.state, arrivals };
  const older = arrivals.slice(0, arrivals.length - RECENT_LOADS);
  const keep = new Set(
    [...older]
      .sort((a, b) => (b.gap ?? -1) - (a.gap ?? -1) || b.at - a.at)
      .slice(0, LONG_GAPS_KEPT)
      .map((a) => a.at),
  );
  return { state: change.state, arrivals: [...older.filter((a) => keep.has(a.at)), ...arrivals.slice(-RECENT_LOADS)] };
}
