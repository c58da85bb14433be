import type { AnomalySettings, Grain } from "./types.js";

/**
 * Band half-width in robust deviations of the one-step prediction error, per grain. A month holds
 * 720 hourly buckets but 30 daily ones, so the same false alarms a month need a wider band hourly:
 * under calibrated Gaussian errors 3 gives 720 × 2.7e-3 ≈ 1.9 single-bucket exceedances a month
 * hourly and 2.85 gives 30 × 4.4e-3 ≈ 0.13 daily (heavier tails widen the band by themselves:
 * prediction-scale.ts; hourly errors that come in runs, as real ones do, widen it too:
 * error-volatility.ts; two buckets in a row are flagged against a band 0.7 times as wide:
 * pair-rule.ts).
 * docs/anomaly-eval.md measures the recall / false-alarm trade-off around these values.
 */
export const DEFAULT_SENSITIVITY: Record<Grain, number> = { hour: 3, day: 2.85 };
/** Default sensitivity of freshnessVerdict (robust deviations of the log gaps). */
export const DEFAULT_FRESHNESS_SENSITIVITY = 4;

/**
 * Defaults per grain: 14 days of hours; 12 weeks of days, so each weekday's effect is a median of
 * 12 (8 weeks: 0.897 recall at the same false alarms, 16 weeks: drift costs more than the profile
 * gains; docs/anomaly-eval.md).
 */
export function defaultAnomalySettings(grain: Grain): Required<AnomalySettings> {
  return grain === "hour"
    ? {
        grain,
        training_buckets: 336,
        detection_buckets: 24,
        sensitivity: DEFAULT_SENSITIVITY.hour,
        seasonality: "auto",
        min_history: 72,
        relearn_buckets: 24,
      }
    : {
        grain,
        training_buckets: 84,
        detection_buckets: 7,
        sensitivity: DEFAULT_SENSITIVITY.day,
        seasonality: "auto",
        min_history: 7,
        relearn_buckets: 4,
      };
}

/** Settings with every optional field filled and every number brought into a usable range. */
export function resolveSettings(settings: AnomalySettings): Required<AnomalySettings> {
  const defaults = defaultAnomalySettings(settings.grain);
  const training = positiveInt(settings.training_buckets, defaults.training_buckets);
  return {
    grain: settings.grain,
    training_buckets: training,
    detection_buckets: Math.max(
      0,
      Math.floor(Number.isFinite(settings.detection_buckets) ? settings.detection_buckets : defaults.detection_buckets),
    ),
    sensitivity: Number.isFinite(settings.sensitivity) && settings.sensitivity > 0 ? settings.sensitivity : defaults.sensitivity,
    seasonality: settings.seasonality,
    min_history: Math.min(training, Math.max(3, positiveInt(settings.min_history, Math.min(defaults.min_history, training)))),
    relearn_buckets: Math.max(2, positiveInt(settings.relearn_buckets, defaults.relearn_buckets)),
  };
}

function positiveInt(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback;
}
