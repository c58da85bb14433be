import type { AnomalySettings, Grain } from "./types.js";

/**
 * Band half-width in robust deviations. 4 keeps hourly series (720 buckets a month) near one
 * false alarm a quarter under Gaussian noise (two-sided P(|z| > 4) ≈ 6e-5 a bucket) while still
 * catching the 4+ deviation anomalies the evaluation plants (docs/anomaly-eval.md).
 */
export const DEFAULT_SENSITIVITY = 4;

/** Defaults per grain: 14 days of hours, 8 weeks of days (the day-of-week profile then has 8 samples). */
export function defaultAnomalySettings(grain: Grain): Required<AnomalySettings> {
  return grain === "hour"
    ? { grain, training_buckets: 336, detection_buckets: 24, sensitivity: DEFAULT_SENSITIVITY, seasonality: "auto", min_history: 72, relearn_buckets: 24 }
    : { grain, training_buckets: 56, detection_buckets: 7, sensitivity: DEFAULT_SENSITIVITY, seasonality: "auto", min_history: 21, relearn_buckets: 4 };
}

/** Settings with every optional field filled and every number brought into a usable range. */
export function resolveSettings(settings: AnomalySettings): Required<AnomalySettings> {
  const defaults = defaultAnomalySettings(settings.grain);
  const training = positiveInt(settings.training_buckets, defaults.training_buckets);
  return {
    grain: settings.grain,
    training_buckets: training,
    detection_buckets: Math.max(0, Math.floor(Number.isFinite(settings.detection_buckets) ? settings.detection_buckets : defaults.detection_buckets)),
    sensitivity: Number.isFinite(settings.sensitivity) && settings.sensitivity > 0 ? settings.sensitivity : defaults.sensitivity,
    seasonality: settings.seasonality,
    min_history: Math.min(training, Math.max(3, positiveInt(settings.min_history, Math.min(defaults.min_history, training)))),
    relearn_buckets: Math.max(2, positiveInt(settings.relearn_buckets, defaults.relearn_buckets)),
  };
}

function positiveInt(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback;
}
