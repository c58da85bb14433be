// A test inferred from a metric's IR. Pure data: listing tests never touches the warehouse.
import type { AnomalyGrain, AnomalySeasonality, Exclusion, MeasureFunction } from "../catalog/types.js";

/** The one list of test severities. */
export const SEVERITIES = ["HIGH", "MEDIUM", "LOW"] as const;
export type Severity = (typeof SEVERITIES)[number];
export type Confidence = "high" | "medium" | "low";

export interface ColumnRef {
  /** database.table */
  table: string;
  column: string;
}

/** What shapes an anomaly series and its verdicts: part of the check's identity (not severity). */
export interface SeriesSettings {
  grain: AnomalyGrain;
  training_buckets: number;
  detection_buckets: number;
  sensitivity: number;
  seasonality: AnomalySeasonality;
  /** public holidays of this region neither train nor alarm; null: none */
  holidays: string | null;
  /** planned exclusions: buckets overlapping [from, to) neither train nor alarm */
  exclude: Exclusion[];
}

/** One measure's value per bucket: its aggregate over `sql` (a quoted column or `(expr)`). */
export interface SeriesMeasure {
  function: MeasureFunction;
  sql: string;
  /** Percentile only */
  percentile?: number;
}

/**
 * A segmented series: one series per value of a dimension of the base table (the top
 * `max_segments` values by rows over the span, the rest folded into `other`, NULL its own).
 */
export interface SeriesSegment {
  /** the dimension's name, as the metric declares it */
  dimension: string;
  /** its SQL on the base table: a quoted column or `(expr)` */
  sql: string;
  max_segments: number;
}

/**
 * What the warehouse must measure for a test. Every probe is answered by the one
 * aggregate query of its (datasource, table), except `schema`,
 * which is answered from system.columns.
 */
export type Probe =
  /** violating rows = countIf(violation) over the group's rows */
  | { type: "rows_where"; violation: string }
  /** violation when the group has zero rows */
  | { type: "not_empty" }
  /** violating rows = count() - uniqExact(key) */
  | { type: "duplicate_keys"; key: string }
  /** all `columns` of the test must exist */
  | { type: "schema" }
  /** newest value of `column` must be at most maxSeconds old */
  | { type: "staleness"; column: string; maxSeconds: number }
  /** rows per time bucket of `timestamp` (unquoted), judged against their own history (src/anomaly) */
  | { type: "volume_series"; timestamp: string; settings: SeriesSettings; segment?: SeriesSegment }
  /** a measure's value per time bucket, judged against its own history (per segment when `segment` is set) */
  | { type: "value_series"; timestamp: string; settings: SeriesSettings; measure: SeriesMeasure; segment?: SeriesSegment }
  /** the time since new rows last landed, judged against the gaps between loads (nights and weekends over `window_seconds`) */
  | { type: "load_cadence"; timestamp: string; window_seconds: number; sensitivity: number };

/** Probes answered by the anomaly series queries (src/plan/series-query.ts), not by the one-pass table query. */
export type AnomalyProbe = Extract<Probe, { type: "volume_series" | "value_series" | "load_cadence" }>;

export function isAnomalyProbe(probe: Probe): probe is AnomalyProbe {
  return probe.type === "volume_series" || probe.type === "value_series" || probe.type === "load_cadence";
}

export interface InferredTest {
  /** identity of the check itself, equal across metrics that share it: datasource|table|filter|rule|check */
  key: string;
  metric: string;
  rule: string;
  name: string;
  /** textual expression of the check, e.g. "amount IS NOT NULL" */
  check: string;
  severity: Severity;
  confidence: Confidence;
  /** tolerated violating fraction of rows_total (0..1); LOW never fails */
  tolerance: number;
  datasource: string;
  /** database.table the test scans */
  table: string;
  filter: string | null;
  /** columns that must exist for the probe to be evaluated */
  columns: ColumnRef[];
  /** columns the metric's filter reads, when the test runs under it: they must exist too */
  filter_columns: ColumnRef[];
  probe: Probe;
  /** ClickHouse query returning up to 10 violating rows */
  sample_sql: string;
  /**
   * Anomaly series of a metric's own measure: its alias (`rows` for the volume series), prefixed
   * with the input's name in a derived metric (`gross_revenue.revenue`). Per test, not per check:
   * two metrics sharing one series may name it differently.
   */
  measure?: string;
}
