// One series check's read history -> its verdicts over its own window. A scan reads a warm-up
// (plan/series-query.ts historyBuckets) before the check's training + detection buckets and scores
// the whole read from its first value, so the model judging the window has learnt the history
// before it; the chart keeps the window only. Feedback scores again from the kept warm-up values
// (series-verdicts.ts `warm_up`) through the same function, so it gives what the scan gave. Pure.
import { excludedStarts } from "../anomaly/exclusions.js";
import { scoreSeries } from "../anomaly/score-series.js";
import type { BucketVerdict, SeriesKind, SeriesVerdict } from "../anomaly/types.js";
import type { SeriesSettings } from "../infer/types.js";
import { historyBuckets } from "../plan/series-query.js";

export interface WindowScore {
  /** the check's window (its last training + detection buckets), oldest first */
  verdict: SeriesVerdict;
  /** the values scored before the window: from the first with a value, empty when none was */
  warm_up: Float64Array;
  /** the window's values as read (valuesIn: a view on a scan's reading) */
  read: Float64Array;
}

/**
 * Scores the newest historyBuckets of `values` (evenly spaced, oldest first; NaN = missing) from
 * the first finite one, and keeps the verdicts of the last training + detection buckets. Buckets
 * of the window before the first value (a table younger than its window) are kept unscored.
 * `segmented`: a segment's series, read without a warm-up.
 */
export function scoreWindow(
  starts: readonly number[],
  values: ArrayLike<number>,
  settings: SeriesSettings,
  kind: SeriesKind,
  expected?: ReadonlySet<number>,
  segmented = false,
): WindowScore {
  const n = Math.min(starts.length, values.length);
  const keep = Math.min(n, settings.training_buckets + settings.detection_buckets);
  const windowFrom = n - keep;
  let from = n - Math.min(n, historyBuckets(settings, segmented));
  // A series counts its age (seasonality tests, the first weeks' z-score) from its first value.
  while (from < n && !Number.isFinite(values[from]!)) from++;
  const first = Math.min(from, windowFrom);
  const excluded = excludedStarts(starts.slice(first, n), settings.grain, settings);
  const scored = scoreSeries(
    {
      starts: starts.slice(from, n),
      values: Array.from({ length: n - from }, (_, i) => values[from + i]!),
      ...(expected ? { expected_starts: expected } : {}),
      ...(excluded.size > 0 ? { excluded_starts: excluded } : {}),
    },
    settings,
    kind,
  );
  const buckets: BucketVerdict[] = [];
  const detectionFrom = n - Math.min(n, settings.detection_buckets);
  for (let i = windowFrom; i < from; i++) buckets.push(unscored(starts[i]!, values[i]!, i >= detectionFrom, expected, excluded));
  buckets.push(...scored.buckets.slice(Math.max(0, windowFrom - from)));
  const kept = buckets[0]?.start ?? Infinity;
  const level_shifts = scored.level_shifts.filter((start) => start >= kept);
  const verdict: SeriesVerdict = { ...scored, buckets, level_shifts, level_shift_at: level_shifts.at(-1) ?? null };
  return {
    verdict,
    warm_up: valuesIn(values, from, windowFrom),
    read: valuesIn(values, windowFrom, n),
  };
}

/**
 * values[from, to): a view where `values` is a Float64Array (a scan's reading, which a replica
 * caches anyway: the warm-up and the window's values copied into the verdicts held them twice,
 * some 13 MB at 10,000 metrics), else a copy. A view keeps its reading's block alive while the
 * verdicts are held, past the cache's eviction of it: at most one scan's reads, the next scan's
 * verdicts replace these. Empty: a fresh empty array, which keeps nothing alive.
 */
function valuesIn(values: ArrayLike<number>, from: number, to: number): Float64Array {
  if (to <= from) return new Float64Array(0);
  if (values instanceof Float64Array) return values.subarray(from, to);
  return Float64Array.from({ length: to - from }, (_, i) => values[from + i]!);
}

function unscored(
  start: number,
  value: number,
  inDetection: boolean,
  expected: ReadonlySet<number> | undefined,
  excluded: ReadonlyMap<number, string>,
): BucketVerdict {
  return {
    start,
    value,
    expected: null,
    lower: null,
    upper: null,
    anomalous: false,
    feedback: expected?.has(start) ?? false,
    excluded: excluded.get(start) ?? null,
    in_detection: inDetection,
    deviations: null,
  };
}
