// A metric's anomaly settings as plain values: what its `anomalies:` block declares, the rest
// from the configured defaults (ANOMALY_* in the environment). Pure; resolved once at compile
// time, so inference and the API read finished values.
import { DEFAULT_MAX_SEGMENTS } from "../catalog/anomalies-schema.js";
import type { AnomalyDeclaration, AnomalyGrain, AnomalySeasonality, AnomalySeverity, Exclusion } from "../catalog/types.js";

export interface AnomalySettingsIR {
  /** false: the metric has no anomaly rules (also when it has no timestamp) */
  enabled: boolean;
  grain: AnomalyGrain;
  /** complete buckets the expected band is learnt from */
  training_buckets: number;
  /** the newest complete buckets, each scored against the training window just before it */
  detection_buckets: number;
  /** the band's half-width in robust deviations of the series' prediction errors */
  sensitivity: number;
  /** freshness_anomaly's: robust deviations of the log gaps between rows */
  freshness_sensitivity: number;
  seasonality: AnomalySeasonality;
  /** medium: an anomaly makes the metric degraded; high: unreliable */
  severity: AnomalySeverity;
  /** country (US) or country-subdivision (DE-BY) whose public holidays neither train nor alarm; null: none */
  holidays: string | null;
  /** planned exclusions ([from, to) as ISO timestamps): the environment's, then the metric's */
  exclude: Exclusion[];
  /** dimensions (of the base table) whose values each get their own series; [] when none */
  segments: string[];
  /** values per segment dimension with their own series; the rest is one `other` segment */
  max_segments: number;
}

/** The environment's defaults; null means "the grain's own default" (see GRAIN_DEFAULTS). */
export interface AnomalyDefaults {
  enabled: boolean;
  grain: AnomalyGrain;
  training_buckets: number | null;
  detection_buckets: number | null;
  sensitivity: number | null;
  seasonality: AnomalySeasonality;
  /** ANOMALY_HOLIDAYS */
  holidays: string | null;
  /** ANOMALY_EXCLUDE */
  exclude: readonly Exclusion[];
}

/**
 * Per grain:
 * - the training span and sensitivity the anomaly stage is calibrated with (src/anomaly/defaults.ts
 *   defaultAnomalySettings, measured in docs/anomaly-eval.md): 12 weeks of days (each weekday's
 *   effect a median of 12), 2 weeks of hours; a month has 720 hours but 30 days, so hours need a
 *   wider band for the same false alarms. A test holds these equal to the stage's;
 * - two detection buckets: an incident stays visible a while after its bucket completes (the
 *   stage's own default, a week of days, would keep a metric degraded for a week).
 */
export const GRAIN_DEFAULTS: Record<AnomalyGrain, { training_buckets: number; detection_buckets: number; sensitivity: number }> = {
  day: { training_buckets: 84, detection_buckets: 2, sensitivity: 2.85 },
  hour: { training_buckets: 336, detection_buckets: 2, sensitivity: 3 },
};
/** freshnessVerdict's calibrated default (src/anomaly/defaults.ts DEFAULT_FRESHNESS_SENSITIVITY). */
export const FRESHNESS_SENSITIVITY = 4;

export const DEFAULT_ANOMALY_DEFAULTS: AnomalyDefaults = {
  enabled: true,
  grain: "day",
  training_buckets: null,
  detection_buckets: null,
  sensitivity: null,
  seasonality: "auto",
  holidays: null,
  exclude: [],
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
    sensitivity: declared?.sensitivity ?? defaults.sensitivity ?? spans.sensitivity,
    // A sensitivity set by the metric or the environment is taken for both; left out, each rule
    // gets the one its method is calibrated with.
    freshness_sensitivity: declared?.sensitivity ?? defaults.sensitivity ?? FRESHNESS_SENSITIVITY,
    seasonality: declared?.seasonality ?? defaults.seasonality,
    severity: declared?.severity ?? "medium",
    // `holidays: none` turns the environment's calendar off; exclusions add up (a planned outage
    // of the whole warehouse and one metric's own both hold).
    holidays: declared?.holidays === undefined ? defaults.holidays : declared.holidays,
    exclude: [...defaults.exclude, ...(declared?.exclude ?? [])].map((e) => ({ ...e })),
    // Per metric only: segments name the metric's own dimensions.
    segments: [...(declared?.segments ?? [])],
    max_segments: declared?.max_segments ?? DEFAULT_MAX_SEGMENTS,
  };
}
