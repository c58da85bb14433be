// A metric's anomaly settings as plain values: what its `anomalies:` block declares, the rest
// from the configured defaults (ANOMALY_* in the environment). Pure; resolved once at compile
// time, so inference and the API read finished values.
import type { AnomalyDeclaration, AnomalyGrain, AnomalySeasonality, AnomalySeverity } from "../catalog/types.js";

export interface AnomalySettingsIR {
  /** false: the metric has no anomaly rules (also when it has no timestamp) */
  enabled: boolean;
  grain: AnomalyGrain;
  /** complete buckets the expected band is learnt from */
  training_buckets: number;
  /** the newest complete buckets, each scored against the training window just before it */
  detection_buckets: number;
  /** the band's half-width in robust deviations */
  sensitivity: number;
  seasonality: AnomalySeasonality;
  /** medium: an anomaly makes the metric degraded; high: unreliable */
  severity: AnomalySeverity;
}

/** The environment's defaults; a null span means "the grain's own default" (see GRAIN_DEFAULTS). */
export interface AnomalyDefaults {
  enabled: boolean;
  grain: AnomalyGrain;
  training_buckets: number | null;
  detection_buckets: number | null;
  sensitivity: number;
  seasonality: AnomalySeasonality;
}

/**
 * Spans that let the method see the seasonality of each grain: 8 weeks of days (8 of each
 * weekday), 4 weeks of hours (4 of each hour of the week, 28 of each hour of the day). Two
 * detection buckets: an incident stays visible a while after its bucket completes.
 */
export const GRAIN_DEFAULTS: Record<AnomalyGrain, { training_buckets: number; detection_buckets: number }> = {
  day: { training_buckets: 56, detection_buckets: 2 },
  hour: { training_buckets: 672, detection_buckets: 2 },
};

export const DEFAULT_ANOMALY_DEFAULTS: AnomalyDefaults = {
  enabled: true,
  grain: "day",
  training_buckets: null,
  detection_buckets: null,
  sensitivity: 4,
  seasonality: "auto",
};

/** `hasTimestamp`: anomaly rules read the series by time, so without a timestamp they are off. */
export function resolveAnomalySettings(
  declared: AnomalyDeclaration | undefined,
  defaults: AnomalyDefaults,
  hasTimestamp: boolean,
): AnomalySettingsIR {
  const grain = declared?.grain ?? defaults.grain;
  const spans = GRAIN_DEFAULTS[grain];
  return {
    enabled: hasTimestamp && (declared?.enabled ?? defaults.enabled),
    grain,
    training_buckets: declared?.training_buckets ?? defaults.training_buckets ?? spans.training_buckets,
    detection_buckets: declared?.detection_buckets ?? defaults.detection_buckets ?? spans.detection_buckets,
    sensitivity: declared?.sensitivity ?? defaults.sensitivity,
    seasonality: declared?.seasonality ?? defaults.seasonality,
    severity: declared?.severity ?? "medium",
  };
}
