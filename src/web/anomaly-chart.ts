// Geometry of one anomaly series' chart: the expected band, the observed line, the expected
// line and the flagged buckets, in SVG user units. Pure, so the numbers are tested as numbers;
// views/anomaly-chart.tsx only draws them.
import type { AnomalyBucketView } from "../services/views.js";

export interface ChartBox {
  width: number;
  height: number;
  /** room for the axis labels */
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export const DEFAULT_BOX: ChartBox = { width: 720, height: 200, left: 56, right: 12, top: 10, bottom: 24 };
/** A segment's small multiple (anomalies.segments): drawn at this size, side by side. */
export const SMALL_BOX: ChartBox = { width: 340, height: 130, left: 44, right: 8, top: 8, bottom: 22 };

export interface FlaggedPoint {
  x: number;
  y: number;
  bucket: AnomalyBucketView;
  expected: boolean;
}

/** A run of consecutive buckets excluded for one reason (a holiday, a planned exclusion): a grey band. */
export interface ExcludedSpan {
  x: number;
  width: number;
  first: AnomalyBucketView;
  last: AnomalyBucketView;
  reason: string;
}

export interface ChartGeometry {
  /** one polygon per run of buckets that have a band ("x,y x,y ...") */
  bands: string[];
  /** observed values, one polyline per run of buckets with a value */
  values: string[];
  /** the expected value, one polyline per run */
  expected: string[];
  flagged: FlaggedPoint[];
  /** buckets that neither train nor alarm, drawn behind the lines */
  excluded: ExcludedSpan[];
  ticks: { y: number; label: string }[];
  /** first and last bucket starts, under the x axis */
  xLabels: { x: number; label: string; anchor: "start" | "end" }[];
  domain: { min: number; max: number };
}

const finite = (v: number | null): v is number => v !== null && Number.isFinite(v);
const fmt = (n: number) => Number(n.toFixed(2)).toString();

/** Round tick steps (1, 2, 5 x 10^k) covering [min, max] with about `target` ticks. */
export function niceTicks(min: number, max: number, target = 4): number[] {
  if (!(max > min)) return [min];
  const rough = (max - min) / target;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

/** "1.2k", "3.4M": axis labels stay short. */
export function shortNumber(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${Number((n / 1e9).toPrecision(3))}G`;
  if (abs >= 1e6) return `${Number((n / 1e6).toPrecision(3))}M`;
  if (abs >= 1e4) return `${Number((n / 1e3).toPrecision(3))}k`;
  return Number(n.toPrecision(4)).toString();
}

/** Splits into runs of consecutive indexes for which `has` holds (a gap breaks a line). */
function runs(count: number, has: (i: number) => boolean): number[][] {
  const out: number[][] = [];
  let run: number[] = [];
  for (let i = 0; i < count; i++) {
    if (has(i)) run.push(i);
    else if (run.length > 0) {
      out.push(run);
      run = [];
    }
  }
  if (run.length > 0) out.push(run);
  return out;
}

export function chartGeometry(buckets: readonly AnomalyBucketView[], box: ChartBox = DEFAULT_BOX): ChartGeometry {
  const plotW = box.width - box.left - box.right;
  const plotH = box.height - box.top - box.bottom;
  const all = buckets.flatMap((b) => [b.value, b.lower, b.upper, b.expected].filter(finite));
  let min = all.length > 0 ? Math.min(...all) : 0;
  let max = all.length > 0 ? Math.max(...all) : 1;
  if (max === min) {
    // A flat series still gets a visible range around its value.
    const pad = Math.abs(min) > 0 ? Math.abs(min) * 0.1 : 1;
    min -= pad;
    max += pad;
  } else {
    const pad = (max - min) * 0.05;
    min -= pad;
    max += pad;
  }
  const x = (i: number) => box.left + (buckets.length <= 1 ? plotW / 2 : (i * plotW) / (buckets.length - 1));
  const y = (v: number) => box.top + plotH - ((v - min) / (max - min)) * plotH;
  const pt = (i: number, v: number) => `${fmt(x(i))},${fmt(y(v))}`;

  const bands = runs(buckets.length, (i) => finite(buckets[i]!.lower) && finite(buckets[i]!.upper)).map((run) =>
    [...run.map((i) => pt(i, buckets[i]!.upper!)), ...[...run].reverse().map((i) => pt(i, buckets[i]!.lower!))].join(" "),
  );
  const line = (field: "value" | "expected") =>
    runs(buckets.length, (i) => finite(buckets[i]![field])).map((run) => run.map((i) => pt(i, buckets[i]![field]!)).join(" "));
  // A bucket marked expected is no longer anomalous (the scorer never flags feedback), but it is
  // still drawn: as the flag a person answered.
  const flagged = buckets.flatMap((bucket, i) =>
    (bucket.anomalous || bucket.feedback) && bucket.excluded === null && finite(bucket.value)
      ? [{ x: Number(fmt(x(i))), y: Number(fmt(y(bucket.value))), bucket, expected: bucket.feedback }]
      : [],
  );
  const first = buckets[0];
  const last = buckets[buckets.length - 1];
  const xLabels: ChartGeometry["xLabels"] = [];
  if (first) xLabels.push({ x: box.left, label: first.start.slice(0, 10), anchor: "start" });
  if (last && buckets.length > 1) xLabels.push({ x: box.width - box.right, label: last.start.slice(0, 10), anchor: "end" });
  return {
    bands,
    values: line("value"),
    expected: line("expected"),
    flagged,
    excluded: excludedSpans(buckets, x, box),
    ticks: niceTicks(min, max).map((t) => ({ y: Number(fmt(y(t))), label: shortNumber(t) })),
    xLabels,
    domain: { min, max },
  };
}

/** Runs of consecutive buckets excluded for the same reason: [first, last] indexes. */
export function excludedRuns(buckets: readonly AnomalyBucketView[]): { first: number; last: number; reason: string }[] {
  const out: { first: number; last: number; reason: string }[] = [];
  for (let i = 0; i < buckets.length; i++) {
    const reason = buckets[i]!.excluded;
    if (reason === null) continue;
    const prev = out.at(-1);
    if (prev && prev.last === i - 1 && prev.reason === reason) prev.last = i;
    else out.push({ first: i, last: i, reason });
  }
  return out;
}

/** Each run of excluded buckets as one band, a bucket wide around each point. */
function excludedSpans(buckets: readonly AnomalyBucketView[], x: (i: number) => number, box: ChartBox): ExcludedSpan[] {
  const half = buckets.length <= 1 ? (box.width - box.left - box.right) / 2 : (x(1) - x(0)) / 2;
  return excludedRuns(buckets).map(({ first, last, reason }) => {
    const left = Math.max(box.left, x(first) - half);
    const right = Math.min(box.width - box.right, x(last) + half);
    return { x: Number(fmt(left)), width: Number(fmt(right - left)), first: buckets[first]!, last: buckets[last]!, reason };
  });
}
