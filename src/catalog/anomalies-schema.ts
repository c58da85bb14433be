// The `anomalies:` block of a metric: its values and its zod schema, shared by our YAML format
// (metric-schema.ts) and MetricFlow's `config.meta.metric_reliability.anomalies`
// (metricflow/schema-meta.ts), and the ANOMALY_HOLIDAYS / ANOMALY_EXCLUDE defaults (config.ts).
// Imports nothing but zod and the holiday calendar's region list, so the definition types can use it.
import { z } from "zod";
import { isHolidayRegion } from "./holiday-regions.js";

export const ANOMALY_GRAINS = ["hour", "day"] as const;
export type AnomalyGrain = (typeof ANOMALY_GRAINS)[number];
export const GRAIN_SECONDS: Record<AnomalyGrain, number> = { hour: 3600, day: 86_400 };
export const ANOMALY_SEASONALITIES = ["auto", "none", "daily", "weekly"] as const;
export type AnomalySeasonality = (typeof ANOMALY_SEASONALITIES)[number];
export const ANOMALY_SEVERITIES = ["medium", "high"] as const;
export type AnomalySeverity = (typeof ANOMALY_SEVERITIES)[number];
/** Largest training or detection span, in buckets (a detection span this long is a backtest). */
export const MAX_ANOMALY_BUCKETS = 10_000;
/** Segments per dimension: the top `max_segments` values by rows, the rest folded into `other`. */
export const DEFAULT_MAX_SEGMENTS = 20;
export const MAX_MAX_SEGMENTS = 200;

const oneOf = (values: readonly string[]) => ({ error: `expected one of ${values.join("|")}` });
const bucketsError = { error: `expected a whole number of buckets from 1 to ${MAX_ANOMALY_BUCKETS}` };
const buckets = z.number().int(bucketsError).min(1, bucketsError).max(MAX_ANOMALY_BUCKETS, bucketsError);
const sensitivityError = { error: "expected a number from 0.5 to 20" };
const maxSegmentsError = { error: `expected a whole number from 1 to ${MAX_MAX_SEGMENTS}` };

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?(Z|([+-])(\d{2}):(\d{2}))?)?$/;

/**
 * "2026-12-24" (UTC midnight) or "2026-12-24T06:00" / "2026-12-24T06:00:00+01:00" (UTC without an
 * offset) as epoch ms; null for anything else, impossible dates (2026-02-30) included.
 */
export function parseInstant(text: string): number | null {
  const m = INSTANT.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(wall);
  const same =
    back.getUTCFullYear() === year &&
    back.getUTCMonth() === month - 1 &&
    back.getUTCDate() === day &&
    back.getUTCHours() === hour &&
    back.getUTCMinutes() === minute &&
    back.getUTCSeconds() === second;
  const offsetHours = Number(m[10] ?? 0);
  const offsetMinutes = Number(m[11] ?? 0);
  if (!same || offsetHours > 14 || offsetMinutes > 59) return null;
  const offset = (m[9] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  return wall + Math.round(Number(m[7] ?? 0) * 1000) - offset * 60_000;
}

const instantError = "expected a date (2026-12-24) or a date and time (2026-12-24T06:00:00Z; UTC without an offset)";
/** A date or date-time, normalised to an ISO 8601 UTC timestamp. */
const instant = z.string({ error: instantError }).transform((text, ctx) => {
  const ms = parseInstant(text.trim());
  if (ms === null) {
    ctx.issues.push({ code: "custom", message: `${instantError}, got "${text}"`, input: text });
    return z.NEVER;
  }
  return new Date(ms).toISOString();
});

/** A planned exclusion: buckets overlapping [from, to) neither train nor alarm; `to` is exclusive. */
export const exclusionSchema = z
  .strictObject({
    from: instant,
    to: instant,
    /** shown on each excluded bucket (the API's `excluded`, the chart's title) */
    reason: z.string({ error: "expected a short text" }).trim().min(1, { error: "expected a short text" }).max(200),
  })
  .refine((e) => e.to > e.from, { path: ["to"], error: "must be after from (to is exclusive: one day is from 2026-12-25 to 2026-12-26)" });
export type Exclusion = z.output<typeof exclusionSchema>;
export const exclusionsSchema = z.array(exclusionSchema).max(1000);

const holidaysError = "expected an ISO 3166 country code (US, GB, DE), optionally with a subdivision (DE-BY), or none";
/** A holiday calendar's region, upper-cased; "none": no holidays (turns a default off). */
export const holidaysSchema = z.string({ error: holidaysError }).transform((text, ctx) => {
  const code = text.trim();
  if (code.toLowerCase() === "none") return null;
  if (!isHolidayRegion(code)) {
    ctx.issues.push({ code: "custom", message: `unknown holiday calendar "${text}": ${holidaysError}`, input: text });
    return z.NEVER;
  }
  return code.toUpperCase();
});

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
  /** public holidays of this country neither train nor alarm; none: not even ANOMALY_HOLIDAYS' */
  holidays: holidaysSchema.optional(),
  /** planned exclusions, added to ANOMALY_EXCLUDE's */
  exclude: exclusionsSchema.optional(),
  /**
   * dimensions of the metric (of its base table) whose values each get their own volume and value
   * series: per metric only, never an environment default (whether a name is one of the metric's
   * dimensions is checked with the metric: cross-checks.ts, metricflow/to-definitions.ts)
   */
  segments: z
    .array(z.string({ error: "expected a dimension name" }).trim().min(1, { error: "expected a dimension name" }))
    .max(20, { error: "at most 20 segment dimensions" })
    .refine((names) => new Set(names).size === names.length, { error: "a dimension is listed twice" })
    .optional(),
  /** values per segment dimension with a series of their own (by rows); the rest is one `other` segment */
  max_segments: z.number().int(maxSegmentsError).min(1, maxSegmentsError).max(MAX_MAX_SEGMENTS, maxSegmentsError).optional(),
});

/** The `anomalies:` block as declared. */
export type AnomalyDeclaration = z.output<typeof anomaliesSchema>;
