// The `anomalies:` block of a metric: its values and its zod schema, shared by our YAML format
// (metric-schema.ts) and MetricFlow's `config.meta.metric_reliability.anomalies`
// (metricflow/schema-meta.ts). Imports nothing but zod, so the definition types can use it.
import { z } from "zod";

export const ANOMALY_GRAINS = ["hour", "day"] as const;
export type AnomalyGrain = (typeof ANOMALY_GRAINS)[number];
export const GRAIN_SECONDS: Record<AnomalyGrain, number> = { hour: 3600, day: 86_400 };
export const ANOMALY_SEASONALITIES = ["auto", "none", "daily", "weekly"] as const;
export type AnomalySeasonality = (typeof ANOMALY_SEASONALITIES)[number];
export const ANOMALY_SEVERITIES = ["medium", "high"] as const;
export type AnomalySeverity = (typeof ANOMALY_SEVERITIES)[number];
/** Largest training or detection span, in buckets (a detection span this long is a backtest). */
export const MAX_ANOMALY_BUCKETS = 10_000;

const oneOf = (values: readonly string[]) => ({ error: `expected one of ${values.join("|")}` });
const bucketsError = { error: `expected a whole number of buckets from 1 to ${MAX_ANOMALY_BUCKETS}` };
const buckets = z.number().int(bucketsError).min(1, bucketsError).max(MAX_ANOMALY_BUCKETS, bucketsError);
const sensitivityError = { error: "expected a number from 0.5 to 20" };

/**
 * Every field is optional: what is left out comes from the ANOMALY_* defaults of the environment.
 * Strict: a misspelt key (say `sensitivty`) is an error, not a silently ignored setting.
 */
export const anomaliesSchema = z.strictObject({
  enabled: z.boolean().optional(),
  grain: z.enum(ANOMALY_GRAINS, oneOf(ANOMALY_GRAINS)).optional(),
  training_buckets: buckets.optional(),
  /** each bucket in it is scored against the training window just before it: a large one is a backtest */
  detection_buckets: buckets.optional(),
  /** the band's half-width in robust deviations: larger flags fewer buckets */
  sensitivity: z.number().min(0.5, sensitivityError).max(20, sensitivityError).optional(),
  seasonality: z.enum(ANOMALY_SEASONALITIES, oneOf(ANOMALY_SEASONALITIES)).optional(),
  /** medium: an anomaly makes the metric degraded; high: unreliable */
  severity: z.enum(ANOMALY_SEVERITIES, oneOf(ANOMALY_SEVERITIES)).optional(),
});

/** The `anomalies:` block as declared. */
export type AnomalyDeclaration = z.output<typeof anomaliesSchema>;
