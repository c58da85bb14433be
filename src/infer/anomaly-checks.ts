// What the three anomaly rules share: whether a metric has them at all, the settings that
// shape its series (part of each check's identity, so equal settings share one series), and
// the wording of their checks.
import type { MetricIR } from "../compile/ir.js";
import type { ColumnRef, Severity, SeriesSegment, SeriesSettings } from "./types.js";
import { valueOf } from "./value-sql.js";

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
 * "per day, 84 training + 2 detection buckets, sensitivity 2.85, seasonality auto", then the
 * holidays and exclusions when there are any: part of the check's key, so metrics that exclude
 * different days never share one judgement.
 */
export function settingsText(s: SeriesSettings): string {
  const base = `per ${s.grain}, ${s.training_buckets} training + ${s.detection_buckets} detection buckets, sensitivity ${s.sensitivity}, seasonality ${s.seasonality}`;
  const holidays = s.holidays === null ? "" : `, ${s.holidays} holidays excluded`;
  const excluded = s.exclude.map((e) => `, excluding ${e.from} to ${e.to}`).join("");
  return `${base}${holidays}${excluded}`;
}

/** A segment dimension of the metric, with what its series reads. */
export interface SegmentOf {
  segment: SeriesSegment;
  /** the dimension as check text reads it: the column, or the expression */
  label: string;
  /** columns of the base table it reads */
  columns: ColumnRef[];
}

/**
 * The metric's `anomalies.segments`, resolved to their dimensions. The catalogue has checked
 * each names a dimension of the base table; one that is a constant (no column read) has no
 * values to split by and is left out.
 */
export function segmentsOf(ir: MetricIR): SegmentOf[] {
  const a = ir.anomalies;
  const table = ir.table;
  if (a === null || table === null) return [];
  return a.segments.flatMap((name) => {
    const dimension = ir.dimensions.find((d) => d.name === name && d.source_table === null);
    const value = dimension === undefined ? null : valueOf(dimension);
    if (value === null) return [];
    return [
      {
        segment: { dimension: name, sql: value.sql, max_segments: a.max_segments },
        label: value.label,
        columns: value.columns.map((column) => ({ table, column })),
      },
    ];
  });
}

/** ` by country (top 20)`: what a segmented check adds to its check text (and so to its key). */
export function segmentText(s: SegmentOf): string {
  return ` by ${s.label} (top ${s.segment.max_segments})`;
}
