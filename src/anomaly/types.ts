// Public shapes of the anomaly stage: plain values in, plain values out (no I/O anywhere here).

export type Grain = "hour" | "day";
/** auto: chosen from the history (see choose-seasonality.ts); daily at day grain means none. */
export type Seasonality = "auto" | "none" | "daily" | "weekly";

export interface AnomalySettings {
  grain: Grain;
  /** Trailing window each bucket is scored against (buckets). */
  training_buckets: number;
  /** The newest N complete buckets are judged (1..10000: a backtest). */
  detection_buckets: number;
  /** Band half-width in robust deviations of the prediction error. */
  sensitivity: number;
  seasonality: Seasonality;
  /** Usable (finite, not flagged) buckets in the training window needed before a bucket is scored. */
  min_history?: number;
  /** Consecutive out-of-band buckets on one side after which a level shift is re-learnt. */
  relearn_buckets?: number;
}

/**
 * count: rows or sums of counts, >= 0 and possibly sparse (the band gets a Poisson part);
 * value: any other measure.
 */
export type SeriesKind = "count" | "value";

export interface SeriesInput {
  /** Epoch ms of each bucket start, oldest first; only complete buckets (the caller drops the current one). */
  starts: readonly number[];
  /** Same length; empty buckets are 0 for counts and sums. A non-finite value is treated as missing. */
  values: readonly number[];
  /** Buckets a person marked "expected" (feedback): never flagged, always used in training. */
  expected_starts?: ReadonlySet<number>;
  /**
   * Buckets excluded (a public holiday, a planned exclusion: exclusions.ts) -> why: they neither
   * train nor alarm, as if missing, and their verdict carries the reason.
   */
  excluded_starts?: ReadonlyMap<number, string>;
}

export interface BucketVerdict {
  start: number;
  value: number;
  /** Expected value; null where the bucket had too little history to be scored. */
  expected: number | null;
  lower: number | null;
  upper: number | null;
  anomalous: boolean;
  /** The bucket is in expected_starts. */
  feedback: boolean;
  /** Why the bucket is excluded (excluded_starts): never anomalous, never trained on; null otherwise. */
  excluded: string | null;
  in_detection: boolean;
  /**
   * Signed distance from `expected` in robust deviations (±sensitivity at the band's edges); null if
   * not scored. A bucket flagged with its neighbour by the pair rule (pair-rule.ts) lies between 0.7
   * and 1 times the sensitivity, and its `lower`/`upper` are that inner band's, so `anomalous`
   * always means outside [`lower`, `upper`].
   */
  deviations: number | null;
}

export interface SeriesVerdict {
  /** insufficient_history when no detection bucket could be scored. */
  kind: "scored" | "insufficient_history";
  /** The seasonality used. */
  seasonality: "none" | "daily" | "weekly";
  /** One per input bucket, oldest first, so a chart can draw the band over the whole span. */
  buckets: BucketVerdict[];
  /** Detection buckets that could be scored. */
  scored: number;
  /** Detection buckets flagged. */
  anomalous: number;
  /** Start of the latest persistent level shift that was re-learnt, if any. */
  level_shift_at: number | null;
  /** Starts of every re-learnt level shift, oldest first. */
  level_shifts: number[];
}

export type FreshnessVerdict =
  | { kind: "insufficient_history"; gaps: number }
  | {
      kind: "scored";
      /** Typical gap between loads (median), seconds. */
      expected_gap: number;
      /** Longest gap still considered on cadence, seconds. */
      upper: number;
      stale: boolean;
      /** currentGapSeconds / expected_gap. */
      ratio: number;
    };
