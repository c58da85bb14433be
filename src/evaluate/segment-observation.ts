// A segmented anomaly check (anomalies.segments): each value of its dimension is a series of its
// own, scored like any series (anomaly-observation.ts scoreCheck / observeSeries), and the check
// is one observation over them: it fails when any segment is flagged, its message names the
// worst segment (and how many more), its sample query selects that segment's rows of the flagged
// bucket. A value first seen less than LEARNING_DAYS before the span's end is learning: scored
// and drawn, never flagged. Pure.
import type { SeriesVerdict } from "../anomaly/types.js";
import { GRAIN_SECONDS, type AnomalyGrain } from "../catalog/types.js";
import type { InferredTest, SeriesSegment } from "../infer/types.js";
import { segmentLiteral, segmentValueSql, type SeriesGroup } from "../plan/series-query.js";
import { bucketRowsSql, observeSeries, scoreCheck, seriesMeasure, type FeedbackIndex } from "./anomaly-observation.js";
import type { AnomalyJudgement } from "./types.js";
import { formatCount } from "./format.js";
import { notApplicable } from "./observe.js";
import type { GrainSeries, SegmentSeries } from "./series-values.js";
import { segmentedVerdicts, toSeriesVerdicts, type SegmentRef, type SeriesVerdicts } from "./series-verdicts.js";
import { runToEnd } from "./steps.js";
import type { CheckObservation, FlaggedBucket } from "./types.js";

/** A segment with rows for fewer days than this (before the span's end) never alarms. */
export const LEARNING_DAYS = 14;

/**
 * Buckets before the detection span a segment's chart keeps (4 weeks of days, 3 days of hours):
 * a segmented check holds up to max_segments + 2 series, and the chart of a segment needs its
 * recent band, not the whole training window. Kept whole, 1,000 segmented metrics held some
 * 45,000 series of 91 to 360 buckets, and a daemon with a 256 MB heap ran out of it.
 */
export const SEGMENT_CHART_HISTORY: Record<AnomalyGrain, number> = { day: 28, hour: 72 };

/** The verdicts a segment's chart keeps: the detection span and SEGMENT_CHART_HISTORY buckets before it. */
function chartPart(verdict: SeriesVerdict, settings: { grain: AnomalyGrain; detection_buckets: number }): SeriesVerdict {
  const keep = settings.detection_buckets + SEGMENT_CHART_HISTORY[settings.grain];
  return verdict.buckets.length <= keep ? verdict : { ...verdict, buckets: verdict.buckets.slice(-keep) };
}

type SeriesProbe = Extract<InferredTest["probe"], { type: "volume_series" | "value_series" }>;

/** `country = 'DE'`, `country IS NULL`, `country (other values)`: how a message names a segment. */
export function segmentLabel(ref: SegmentRef): string {
  if (ref.other) return `${ref.dimension} (other values)`;
  return ref.value === null ? `${ref.dimension} IS NULL` : `${ref.dimension} = ${segmentLiteral(ref.value)}`;
}

/**
 * The rows of one segment, as SQL on the base table: its value (NULL included), or for `other`
 * every value but the top ones this reading split out.
 */
export function segmentCondition(
  segment: SeriesSegment,
  of: Pick<SegmentSeries, "value" | "other">,
  all: readonly SegmentSeries[],
): string {
  if (!of.other) return of.value === null ? `${segment.sql} IS NULL` : `toString(${segment.sql}) = ${segmentLiteral(of.value)}`;
  const top = all.filter((s) => !s.other).map((s) => segmentLiteral(s.value));
  return top.length === 0 ? "1" : `${segmentValueSql(segment)} NOT IN (${top.join(", ")})`;
}

/** No alarm for a segment first seen recently: its buckets keep their band, none is flagged. */
function learning(verdict: SeriesVerdict): SeriesVerdict {
  return { ...verdict, buckets: verdict.buckets.map((b) => (b.anomalous ? { ...b, anomalous: false } : b)) };
}

/** How far the worst flagged bucket is outside its band, in band widths (to order segments). */
function severity(verdict: SeriesVerdict): number {
  let worst = 0;
  for (const b of verdict.buckets) {
    if (!b.in_detection || !b.anomalous || b.expected === null) continue;
    const width = Math.max((b.upper ?? b.expected) - (b.lower ?? b.expected), Number.EPSILON);
    worst = Math.max(worst, Math.abs(b.value - b.expected) / width);
  }
  return worst;
}

interface Scored {
  ref: SegmentRef;
  series: SegmentSeries;
  verdict: SeriesVerdict;
  observation: CheckObservation;
  flagged: FlaggedBucket[];
  severity: number;
}

export function judgeSegments(
  test: InferredTest,
  group: Pick<SeriesGroup, "timestamp" | "kind">,
  series: GrainSeries,
  feedback: FeedbackIndex,
): AnomalyJudgement {
  return runToEnd(judgeSegmentsSteps(test, group, series, feedback));
}

/**
 * judgeSegments pausing after each segment's series: a check of 50 segments scores for a tenth of
 * a second or more, too long to hold the event loop (runSteps hands it back between steps).
 */
export function* judgeSegmentsSteps(
  test: InferredTest,
  group: Pick<SeriesGroup, "timestamp" | "kind">,
  series: GrainSeries,
  feedback: FeedbackIndex,
): Generator<void, AnomalyJudgement> {
  const probe = test.probe as SeriesProbe;
  const segment = probe.segment!;
  const all = series.segments ?? [];
  const learningFrom = series.span.end - LEARNING_DAYS * 86_400;
  const scored: Scored[] = [];
  let learners = 0;
  for (const s of all) {
    const raw = scoreCheck(test, { span: series.span, checks: s.checks }, feedback)?.verdict;
    if (raw === undefined) continue;
    const isNew = s.first >= bucketsIn(series) || series.span.start + s.first * series.span.step > learningFrom;
    if (isNew) learners += 1;
    const verdict = isNew ? learning(raw) : raw;
    const { observation, flagged } = observeSeries(test, group, verdict);
    const ref: SegmentRef = { dimension: segment.dimension, value: s.value, other: s.other };
    scored.push({ ref, series: s, verdict, observation, flagged, severity: severity(verdict) });
    yield;
  }
  const by = `by ${segment.dimension}`;
  if (scored.length === 0)
    return { observation: notApplicable(`no rows ${by} in the history window, nothing to compare`), flagged: [], judged: false };
  // Worst first: flagged segments by how far outside their band, then the rest as read.
  const ordered = scored
    .map((x, i) => ({ x, i }))
    .sort((a, b) => b.x.observation.rows_affected - a.x.observation.rows_affected || b.x.severity - a.x.severity || a.i - b.i)
    .map(({ x }) => x);
  const verdicts: SeriesVerdicts = segmentedVerdicts(
    test.key,
    ordered.flatMap((x) => {
      const v = toSeriesVerdicts(test.key, chartPart(x.verdict, probe.settings));
      return v === null ? [] : [{ ...v, segment: x.ref }];
    }),
  );
  const measured = ordered.filter((x) => x.observation.outcome === "measured");
  const judged = { judged: true, verdicts };
  if (measured.length === 0) {
    // Every segment excluded, or none with enough history: the first one's reason holds for all.
    const first = ordered[0]!.observation;
    return { observation: { ...first, message: `${by}: ${first.message}` }, flagged: [], ...judged };
  }
  const bad = measured.filter((x) => x.observation.rows_affected > 0);
  const learningNote = learners > 0 ? `; ${formatCount(learners)} learning (first seen less than ${LEARNING_DAYS} days ago)` : "";
  if (bad.length === 0) {
    const rowsTotal = Math.max(...measured.map((x) => x.observation.rows_total));
    const what = probe.type === "volume_series" ? "rows" : seriesMeasure(probe).replace(/`/g, "");
    const message = `${what} within the expected range in ${measured.length === 1 ? "the one segment" : `all ${formatCount(measured.length)} segments`} ${by}${learningNote}`;
    return { observation: { outcome: "measured", rows_affected: 0, rows_total: rowsTotal, message }, flagged: [], ...judged };
  }
  const worst = bad[0]!;
  const more = bad.length > 1 ? `; and ${formatCount(bad.length - 1)} more ${bad.length === 2 ? "segment" : "segments"}` : "";
  // The worst segment's share decides the status, as a check of one series would.
  const observation: CheckObservation = {
    outcome: "measured",
    rows_affected: worst.observation.rows_affected,
    rows_total: worst.observation.rows_total,
    message: `${segmentLabel(worst.ref)}: ${worst.observation.message}${more}`,
  };
  const newest = worst.verdict.buckets.filter((b) => b.in_detection && b.anomalous).at(-1);
  if (newest) {
    const rows = bucketRowsSql(test, group, newest.start, GRAIN_SECONDS[probe.settings.grain]);
    const condition = segmentCondition(segment, worst.series, all);
    observation.sample_sql = rows.replace(" WHERE ", ` WHERE (${condition}) AND `);
  }
  // The store keeps one flagged bucket per (check, start): the worst segment's, named in its measure.
  const flagged: FlaggedBucket[] = [];
  const seen = new Set<number>();
  for (const x of bad)
    for (const f of x.flagged) {
      if (seen.has(f.start.getTime())) continue;
      seen.add(f.start.getTime());
      flagged.push({ ...f, measure: `${f.measure} where ${segmentLabel(x.ref)}` });
    }
  return { observation, flagged, ...judged };
}

const bucketsIn = (series: GrainSeries): number => Math.round((series.span.end - series.span.start) / series.span.step);
