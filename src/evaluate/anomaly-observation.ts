// Anomaly series -> the anomaly stage's verdicts (src/anomaly) -> one CheckObservation per
// anomaly check, plus the buckets a scan flagged (the store keeps only those). Pure: the scan
// and the read path (GET /v1/reliability/anomalies) judge with the same functions.
// - volume_anomaly / metric_value_anomaly: rows_affected = anomalous detection buckets,
//   rows_total = detection buckets that could be scored; the message names the (newest)
//   anomalous bucket, its value and the expected range; sample_sql selects that bucket's rows.
// freshness_anomaly is judged from when rows landed, not from the series (load-arrivals.ts).
import type { SeriesKind, SeriesVerdict } from "../anomaly/types.js";
import { GRAIN_SECONDS } from "../catalog/types.js";
import type { InferredTest, SeriesSettings } from "../infer/types.js";
import type { SeriesGroup } from "../plan/series-query.js";
import { timeRangeSql } from "../plan/series-time.js";
import { quoteTable } from "../sql/identifiers.js";
import { timeSql } from "../sql/value-expr.js";
import type { CheckObservation, FlaggedBucket } from "./types.js";
import { scoreWindow, type WindowScore } from "./check-window.js";
import { formatCount } from "./format.js";
import { notApplicable } from "./observe.js";
import { bucketCount, type GrainSeries } from "./series-values.js";
import { bucketStart, isSegmented, toSeriesVerdicts, type SeriesVerdicts } from "./series-verdicts.js";

/** check key -> bucket starts (epoch ms) marked expected. */
export type FeedbackIndex = ReadonlyMap<string, ReadonlySet<number>>;

type SeriesProbe = Extract<InferredTest["probe"], { type: "volume_series" | "value_series" }>;

const COUNT_FUNCTIONS = new Set(["Count", "CountDistinct", "SumBoolean"]);

/** count: rows and counts (>= 0, possibly sparse); value: sums of amounts, averages, extremes. */
export function seriesKind(probe: SeriesProbe): SeriesKind {
  return probe.type === "volume_series" || COUNT_FUNCTIONS.has(probe.measure.function) ? "count" : "value";
}

/** The series' aggregate as stored with its flagged buckets: count() or e.g. Sum(`amount`). */
export function seriesMeasure(probe: SeriesProbe): string {
  if (probe.type === "volume_series") return "count()";
  const p = probe.measure.function === "Percentile" && probe.measure.percentile !== undefined ? `(${probe.measure.percentile})` : "";
  return `${probe.measure.function}${p}(${probe.measure.sql})`;
}

/**
 * The check's own window (its training + detection buckets: the newest of the grain's series)
 * scored after the warm-up read before it (check-window.ts; a segment's series have none), its
 * holidays and planned exclusions left out. Null when the series does not hold the check.
 */
export function scoreCheck(test: InferredTest, series: GrainSeries, feedback: FeedbackIndex): WindowScore | null {
  const probe = test.probe;
  if (probe.type !== "volume_series" && probe.type !== "value_series") return null;
  const check = series.checks.get(test.key);
  if (!check) return null;
  const n = bucketCount(series.span);
  const starts: number[] = [];
  for (let i = 0; i < n; i++) starts.push((series.span.start + i * series.span.step) * 1000);
  return scoreWindow(starts, check.values, probe.settings, seriesKind(probe), feedback.get(test.key), probe.segment !== undefined);
}

const GRAIN_NOUN = { hour: ["hour", "hours"], day: ["day", "days"] } as const;

function plural(settings: SeriesSettings, n: number): string {
  return GRAIN_NOUN[settings.grain][n === 1 ? 0 : 1];
}

/** 2026-11-23 for a day, 2026-11-23 14:00 UTC for an hour. */
export function bucketLabel(startMs: number, settings: SeriesSettings): string {
  const iso = new Date(startMs).toISOString();
  return settings.grain === "day" ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

// Built once: toLocaleString with options builds a formatter per call, thousands of times a scan.
const WHOLE = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const THREE_DIGITS = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 3 });

/** Numbers as people read them: whole from 100 on, else 3 significant digits; thousands separated. */
export function formatValue(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return "no value";
  return Math.abs(value) >= 100 ? WHOLE.format(Math.round(value)) : THREE_DIGITS.format(value);
}

/** The rows of one bucket of the check's series, as clickhouse-client would take them. */
export function bucketRowsSql(test: InferredTest, group: Pick<SeriesGroup, "timestamp" | "kind">, startMs: number, step: number): string {
  const column = timeSql(group.timestamp);
  const start = startMs / 1000;
  const range = timeRangeSql(column, group.kind, start, start + step);
  const where = test.filter === null ? range : `(${test.filter}) AND ${range}`;
  return `SELECT * FROM ${quoteTable(test.table)} WHERE ${where} ORDER BY ${column} LIMIT 10`;
}

export interface SeriesObservation {
  observation: CheckObservation;
  /** anomalous detection buckets, as the store keeps them */
  flagged: FlaggedBucket[];
}

/** One series check's observation from its verdict. */
export function observeSeries(
  test: InferredTest,
  group: Pick<SeriesGroup, "timestamp" | "kind">,
  verdict: SeriesVerdict,
): SeriesObservation {
  const probe = test.probe as SeriesProbe;
  const settings = probe.settings;
  const what = probe.type === "volume_series" ? "rows" : seriesMeasure(probe).replace(/`/g, "");
  const detection = verdict.buckets.filter((b) => b.in_detection);
  const excluded = detection.filter((b) => b.excluded !== null);
  const newestExcluded = excluded.at(-1);
  if (newestExcluded && excluded.length === detection.length) {
    const which =
      excluded.length === 1 ? bucketLabel(newestExcluded.start, settings) : `${excluded.length} ${plural(settings, excluded.length)}`;
    return { observation: notApplicable(`excluded from anomaly detection: ${which} (${newestExcluded.excluded})`), flagged: [] };
  }
  if (verdict.kind === "insufficient_history") {
    const usable = verdict.buckets.filter((b) => Number.isFinite(b.value)).length;
    const window = `${formatCount(verdict.buckets.length)}-${GRAIN_NOUN[settings.grain][0]} window`;
    const reason = `not enough history yet (${usable} complete ${plural(settings, usable)} with a value in the ${window})`;
    return { observation: notApplicable(reason), flagged: [] };
  }
  const anomalous = verdict.buckets.filter((b) => b.in_detection && b.anomalous);
  const scored = verdict.scored;
  const flagged: FlaggedBucket[] = anomalous.map((b) => ({
    check_key: test.key,
    rule: test.rule,
    measure: seriesMeasure(probe),
    start: new Date(b.start),
    value: b.value,
    expected: b.expected,
    lower: b.lower,
    upper: b.upper,
  }));
  const span = `${formatCount(scored)} ${plural(settings, scored)}`;
  // The newest anomalous bucket is the one to look at; the latest scored one otherwise.
  const shown = anomalous.at(-1) ?? verdict.buckets.filter((b) => b.in_detection && b.expected !== null).at(-1);
  const detail = shown
    ? `${bucketLabel(shown.start, settings)} ${probe.type === "volume_series" ? "had" : "was"} ${formatValue(shown.value)}${probe.type === "volume_series" ? " rows" : ""}, expected ${formatValue(shown.lower)} to ${formatValue(shown.upper)}`
    : "";
  const message =
    anomalous.length === 0
      ? `${what} within the expected range in ${span}${detail ? ` (latest: ${detail})` : ""}`
      : `${formatCount(anomalous.length)} of ${span} outside the expected range: ${detail}`;
  const skipped = newestExcluded ? `; ${formatCount(excluded.length)} excluded (${newestExcluded.excluded})` : "";
  const observation: CheckObservation = {
    outcome: "measured",
    rows_affected: anomalous.length,
    rows_total: scored,
    message: `${message}${skipped}`,
  };
  const newest = anomalous.at(-1);
  if (newest) observation.sample_sql = bucketRowsSql(test, group, newest.start, GRAIN_SECONDS[settings.grain]);
  return { observation, flagged };
}

/** Stored feedback records -> the index scoring takes. */
export function feedbackIndex(records: readonly { check_key: string; start: Date }[]): Map<string, Set<number>> {
  const index = new Map<string, Set<number>>();
  for (const record of records) {
    const set = index.get(record.check_key) ?? new Set<number>();
    set.add(record.start.getTime());
    index.set(record.check_key, set);
  }
  return index;
}

/**
 * The same series scored again with the feedback as it stands (a person marked a bucket
 * expected): from the values kept with the verdicts (the window and the warm-up the scan read
 * before it), so no warehouse is read. Null when `test` is not a series check.
 */
export function rescore(test: InferredTest, held: SeriesVerdicts, feedback: FeedbackIndex): SeriesVerdicts | null {
  const probe = test.probe;
  // A segmented check's series are scored at the scan only (feedback marks a total's bucket).
  if ((probe.type !== "volume_series" && probe.type !== "value_series") || isSegmented(held)) return null;
  const warmUp = held.warm_up ?? new Float64Array(0);
  const starts: number[] = [];
  const values = new Float64Array(warmUp.length + held.value.length);
  values.set(warmUp);
  values.set(held.value, warmUp.length);
  for (let i = -warmUp.length; i < held.value.length; i++) starts.push(bucketStart(held, i));
  const { verdict, warm_up, read } = scoreWindow(starts, values, probe.settings, seriesKind(probe), feedback.get(test.key));
  return toSeriesVerdicts(test.key, verdict, warm_up, read);
}
