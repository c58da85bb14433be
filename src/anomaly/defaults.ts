import type { AnomalySettings, Grain } from "./types.js";

/**
 * Band half-width in robust deviations of the one-step prediction error, per grain. A month holds
 * 720 hourly buckets but 30 daily ones, so the same false alarms a month need a wider band hourly:
 * under calibrated Gaussian errors 3.5 gives 720 × 4.7e-4 ≈ 0.3 a month hourly and 3 gives
 * 30 × 2.7e-3 ≈ 0.08 daily (heavier tails widen the band by themselves: prediction-scale.ts).
 * docs/anomaly-eval.md measures the recall / false-alarm trade-off at 3 to 4.5.
 */
export const DEFAULT_SENSITIVITY: Record<Grain, number> = { hour: 3.5, day: 3 };
/** Default sensitivity of freshnessVerdict (robust deviations of the log gaps). */
export const DEFAULT_FRESHNESS_SENSITIVITY = 4;

/** Defaults per grain: 14 days of hours, 8 weeks of days (the day-of-week profile then has 8 samples). */
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
        training_buckets: 56,
        detection_buckets: 7,
        sensitivity: DEFAULT_SENSITIVITY.day,
        seasonality: "auto",
        min_history: 21,
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
