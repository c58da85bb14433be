// freshness_anomaly: is the gap since the newest row longer than the table's own loading cadence allows?
import { DEFAULT_FRESHNESS_SENSITIVITY } from "./defaults.js";
import { robustSdInPlace } from "./mad.js";
import { medianInPlace } from "./select.js";
import type { FreshnessVerdict } from "./types.js";

/** Loads seen before a cadence is trusted: 5 loads, 4 gaps between them. */
export const MIN_LOADS = 5;
export const MIN_LOAD_GAPS = MIN_LOADS - 1;
/** Even a perfectly regular loader may run half a cycle late before it is stale. */
const MIN_RATIO = 1.5;
/** A long gap seen at least once a week on average (weekends, nights) is part of the cadence... */
const RECURRING_EVERY_SECONDS = 7 * 86_400;
/** ...and the current gap may exceed it by this much. */
const RECURRING_MARGIN = 1.25;

/**
 * Input: `loadGapsSeconds`, the gaps between successive loads (when new rows landed, never how
 * dense the event times are), oldest first; non-finite or non-positive gaps are ignored.
 * `currentGapSeconds`: now minus the last load. `recurring` (optional): the gaps the recurring
 * rule looks at, with the `spanSeconds` they cover (default: the same gaps and their sum), so a
 * caller holding only its recent loads plus the older long gaps (store/arrival-store.ts) still
 * knows its nights and weekends.
 *
 * Method, on log gaps (loading delays are multiplicative: a daily load is late by hours, a
 * five-minute one by minutes):
 * - expected_gap = the median gap;
 * - the core bound = exp(median + sensitivity × robust sd of the log gaps), at least 1.5 × the median;
 * - a recurring long gap (the r-th longest, r = one per week of lookback, at least 2) widened by 25%
 *   also counts as on cadence, so nights and weekends without loads are not stale;
 * - upper = the larger of the two; stale when the current gap exceeds it.
 * A table loaded daily (gaps ≈ 24 h) is then stale after about 36 h, never at 23 h; one loaded every
 * 5 minutes is stale after 7.5 minutes of silence and certainly at 1 h.
 * Fewer than 4 gaps (5 loads): { kind: "insufficient_history" }. Gaps only carry no time of day: a loader
 * that pauses every night is not stale at 3 a.m. for the same reason it is not stale at 3 p.m.
 */
export function freshnessVerdict(
  loadGapsSeconds: readonly number[],
  currentGapSeconds: number,
  sensitivity = DEFAULT_FRESHNESS_SENSITIVITY,
  recurring?: { gaps: readonly number[]; spanSeconds: number },
): FreshnessVerdict {
  const gaps = new Float64Array(loadGapsSeconds.length);
  let count = 0;
  let span = 0;
  for (const gap of loadGapsSeconds) {
    if (!Number.isFinite(gap) || gap <= 0) continue;
    gaps[count++] = gap;
    span += gap;
  }
  if (count < MIN_LOAD_GAPS) return { kind: "insufficient_history", gaps: count };
  const k = Number.isFinite(sensitivity) && sensitivity > 0 ? sensitivity : DEFAULT_FRESHNESS_SENSITIVITY;
  const logs = new Float64Array(count);
  for (let i = 0; i < count; i++) logs[i] = Math.log(gaps[i]!);
  const center = medianInPlace(logs.slice(), count);
  const spread = Math.max(robustSdInPlace(logs, count), Math.log(MIN_RATIO) / k);
  const core = Math.exp(center + k * spread);
  const long = recurring ? recurring.gaps.filter((gap) => Number.isFinite(gap) && gap > 0) : [...gaps.subarray(0, count)];
  const recurringRank = Math.max(2, Math.floor((recurring ? recurring.spanSeconds : span) / RECURRING_EVERY_SECONDS));
  long.sort((a, b) => b - a);
  const onCadence = recurringRank <= long.length ? long[recurringRank - 1]! * RECURRING_MARGIN : 0;
  const upper = Math.max(core, onCadence);
  const expected = Math.exp(center);
  const current = Math.max(0, currentGapSeconds);
  return { kind: "scored", expected_gap: expected, upper, stale: current > upper, ratio: current / expected };
}
