// What the three anomaly rules share: whether a metric has them at all, the settings that
// shape its series (part of each check's identity, so equal settings share one series), and
// the wording of their checks.
import type { MetricIR } from "../compile/ir.js";
import type { Severity, SeriesSettings } from "./types.js";

/** The metric's series settings, or null when it has no anomaly rules (switched off, no timestamp). */
export function seriesSettings(ir: MetricIR): SeriesSettings | null {
  const a = ir.anomalies;
  if (ir.table === null || ir.timestamp === null || a === null || !a.enabled) return null;
  return {
    grain: a.grain,
    training_buckets: a.training_buckets,
    detection_buckets: a.detection_buckets,
    sensitivity: a.sensitivity,
    seasonality: a.seasonality,
    holidays: a.holidays,
    exclude: a.exclude,
  };
}

/** medium (default): an anomaly makes the metric degraded; high: unreliable. */
export function anomalySeverity(ir: MetricIR): Severity {
  return ir.anomalies?.severity === "high" ? "HIGH" : "MEDIUM";
}

/**
 * "per day, 84 training + 2 detection buckets, sensitivity 2.9, seasonality auto", then the
 * holidays and exclusions when there are any: part of the check's key, so metrics that exclude
 * different days never share one judgement.
 */
export function settingsText(s: SeriesSettings): string {
  const base = `per ${s.grain}, ${s.training_buckets} training + ${s.detection_buckets} detection buckets, sensitivity ${s.sensitivity}, seasonality ${s.seasonality}`;
  const holidays = s.holidays === null ? "" : `, ${s.holidays} holidays excluded`;
  const excluded = s.exclude.map((e) => `, excluding ${e.from} to ${e.to}`).join("");
  return `${base}${holidays}${excluded}`;
}
