// scoreSeries: every bucket of a series against the trailing window before it, oldest first.
import { calendarOf } from "./calendar.js";
import { resolveSettings } from "./defaults.js";
import type { BandModel } from "./score-bucket.js";
import type { SeasonMode } from "./seasonal-baseline.js";
import { SeriesRun } from "./series-run.js";
import { fitSpaceOf, toFitSpace } from "./transform.js";
import type { AnomalySettings, Grain, SeriesInput, SeriesKind, SeriesVerdict } from "./types.js";

/**
 * Scores each bucket against the `training_buckets` before it (a backtest over the detection span,
 * and a band over the earlier span wherever `min_history` usable buckets precede it).
 *
 * Method (docs/anomaly-eval.md has its evaluation; series-run.ts runs it):
 * 1. Fit space: log1p for counts, log for positive values (with a small offset when a few are 0),
 *    else identity (transform.ts).
 * 2. Seasonality: as set, or under `auto` chosen once from the whole series by a χ² test of the
 *    hour-of-day and day-of-week effects (choose-seasonality.ts).
 * 3. Every week (168 hourly or 7 daily buckets) the profile is refitted on the window's usable
 *    buckets: hour-of-day and day-of-week effects by median polish, the trend by Tukey's resistant
 *    line (seasonal-baseline.ts).
 * 4. The deseasonalized level follows every bucket by robust (Huber-clipped) Holt smoothing; of
 *    several smoothing constants, the one with the smallest recent error predicts
 *    (level-smoother.ts). Expected = level + trend + the bucket's seasonal effect.
 * 5. Band = expected ± sensitivity × the robust scale of the window's one-step prediction errors,
 *    in the original units: noise proportional to the level (or additive in identity space), a
 *    Poisson part for counts with Cornish–Fisher edges, a tail factor for heavy tails
 *    (prediction-scale.ts, score-bucket.ts).
 * 6. Warm-up: a bucket is judged once the window supports the seasonality and holds 48 hourly /
 *    14 daily prediction errors (until then it is predicted, not judged, and trains).
 * 7. A flagged bucket never trains; its error counts for the scale only capped at the band's edge.
 *    A feedback bucket is never flagged and always trains.
 * 8. Level shift: after `relearn_buckets` consecutive out-of-band buckets on one side (or two when
 *    one carries feedback) the shift is re-learnt: the level and the history before it move by the
 *    shift's median size and its buckets join training. Counts stuck at 0 are an outage, never
 *    re-learnt without feedback.
 * Values that are not finite are missing: no verdict, not used. Starts and values of unequal length
 * are cut to the shorter one.
 */
export function scoreSeries(input: SeriesInput, settings: AnomalySettings, kind: SeriesKind): SeriesVerdict {
  if (input.excluded_starts !== undefined && input.excluded_starts.size > 0)
    return scoreExcluding(input, input.excluded_starts, settings, kind);
  const cfg = resolveSettings(settings);
  const n = Math.min(input.starts.length, input.values.length);
  const starts = input.starts.length === n ? input.starts : input.starts.slice(0, n);
  const values = input.values.length === n ? input.values : input.values.slice(0, n);
  const space = fitSpaceOf(values, kind);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) y[i] = Number.isFinite(values[i]!) ? toFitSpace(space, values[i]!) : Number.NaN;
  const calendar = calendarOf(starts, cfg.grain);
  const wanted = resolveSeasonality(cfg.seasonality, cfg.grain);
  const band: BandModel = { relative: space.log, poisson: space.counts, sensitivity: cfg.sensitivity };
  const run = new SeriesRun({ n, y, values, starts, calendar, space, band, wanted, settings: cfg, feedback: input.expected_starts });
  return run.score();
}

/** auto stays auto: the run chooses from the history before each refit (series-run.ts). */
function resolveSeasonality(wanted: AnomalySettings["seasonality"], grain: Grain): SeasonMode | "auto" {
  if (wanted === "auto") return "auto";
  return grain === "day" && wanted === "daily" ? "none" : wanted;
}

/**
 * Excluded buckets (holidays, planned exclusions) scored as missing values, so they neither train
 * nor alarm, then marked: never anomalous, the reason given, the observed value kept for the chart.
 */
function scoreExcluding(
  input: SeriesInput,
  excluded: ReadonlyMap<number, string>,
  settings: AnomalySettings,
  kind: SeriesKind,
): SeriesVerdict {
  const values = input.values.map((v, i) => (excluded.has(input.starts[i]!) ? Number.NaN : v));
  const { excluded_starts: _, ...rest } = input;
  const verdict = scoreSeries({ ...rest, values }, settings, kind);
  verdict.buckets.forEach((bucket, i) => {
    const reason = excluded.get(bucket.start);
    if (reason === undefined) return;
    bucket.excluded = reason;
    bucket.anomalous = false;
    bucket.value = input.values[i]!;
  });
  return verdict;
}
