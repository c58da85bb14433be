// The series judged as a scan judges them: each scan reads the last training + detection buckets
// (GRAIN_DEFAULTS) and the warm-up before them (plan/series-query.ts historyBuckets), and scores
// them afresh with the product's own function (evaluate/check-window.ts scoreWindow), so every
// verdict comes from a model that has seen at most that much history, not the years of a backtest.
import { GRAIN_DEFAULTS } from "../../src/compile/anomaly-settings.js";
import { defaultAnomalySettings } from "../../src/anomaly/defaults.js";
import type { Grain } from "../../src/anomaly/types.js";
import { scoreWindow } from "../../src/evaluate/check-window.js";
import type { SeriesSettings } from "../../src/infer/types.js";
import { historyBuckets } from "../../src/plan/series-query.js";
import { GAP_FAMILIES, GRAINS, seedOf } from "./evaluate.js";
import { ANOMALY_KINDS, FAMILIES, generateSeries } from "./generate.js";
import {
  NAB_FAMILIES,
  addNabTally,
  emptyNabTally,
  perMonth as nabPerMonth,
  protocolZScore,
  tallyNab,
  type NabSeries,
  type NabTally,
} from "./nab.js";
import type { Out, Table } from "./real-eval.js";
import { addTally, emptyTally, perMonth, ratio, tallySeries, type Tally } from "./score-metrics.js";
import { zScoreFlags } from "./z-score.js";

/** Series per kind scored this way: every day of the daily ones; hourly, a third (each hour is a scan). */
export const SCAN_SHAPED_SERIES: Record<Grain, number> = { day: 36, hour: 12 };

/** A check's settings as the compiler gives them by default, at `sensitivity`. */
function checkSettings(grain: Grain, sensitivity: number): SeriesSettings {
  const { training_buckets, detection_buckets } = GRAIN_DEFAULTS[grain];
  return { grain, training_buckets, detection_buckets, sensitivity, seasonality: "auto", holidays: null, exclude: [] };
}

/**
 * Flags of series `values` as scans would raise them: at every bucket e a scan scores the history
 * it reads, ending at e, and a bucket counts as flagged when any scan that judged it (as one of its
 * detection buckets) flagged it.
 */
export function scanFlags(
  starts: readonly number[],
  values: readonly number[],
  kind: "count" | "value",
  grain: Grain,
  from: number,
  sensitivity: number,
): Uint8Array {
  const settings = checkSettings(grain, sensitivity);
  const length = historyBuckets(settings);
  const flags = new Uint8Array(values.length);
  // A series younger than the read is read whole (a scan reads what there is).
  for (let end = from; end < values.length; end++) {
    const first = Math.max(0, end - length + 1);
    const { verdict } = scoreWindow(starts.slice(first, end + 1), values.slice(first, end + 1), settings, kind);
    const kept = verdict.buckets.length;
    for (let k = Math.max(0, kept - settings.detection_buckets); k < kept; k++)
      if (verdict.buckets[k]!.anomalous && end + 1 - kept + k >= from) flags[end + 1 - kept + k] = 1;
  }
  return flags;
}

export function printScanShaped(out: Out, table: Table, sensitivity: Partial<Record<Grain, number>>, markdown: boolean): void {
  out(`## As a scan judges them (--scan-shaped)`);
  out();
  const read = (grain: Grain) => historyBuckets(GRAIN_DEFAULTS[grain]);
  out(
    `Each bucket judged by the scans that read it: the last ${read("day")} days (${read("hour")} hours: a warm-up, then the check's window) scored afresh at every bucket, flagged when any of them flagged it; series per kind: day ${SCAN_SHAPED_SERIES.day}, hour ${SCAN_SHAPED_SERIES.hour}. The z-score reads 14 days either way.`,
  );
  out();
  const rows: string[][] = [];
  for (const grain of GRAINS) {
    const k = sensitivity[grain] ?? defaultAnomalySettings(grain).sensitivity;
    const ours = emptyTally();
    const z = emptyTally();
    const started = performance.now();
    for (const kind of ANOMALY_KINDS) {
      const families = kind === "gap" ? GAP_FAMILIES : FAMILIES;
      for (let s = 0; s < SCAN_SHAPED_SERIES[grain]; s++) {
        const g = generateSeries(seedOf(grain, kind, s), grain, families[s % families.length]!, kind);
        addTally(ours, tallySeries(g, scanFlags(g.starts, g.values, g.kind, grain, g.detectionFrom, k)));
        addTally(z, tallySeries(g, zScoreFlags(g.values, 14 * (grain === "hour" ? 24 : 1))));
      }
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    for (const [method, t] of [
      [`ours (sensitivity ${k})`, ours],
      ["z-score", z],
    ] as const)
      rows.push([grain, method, recallOf(t), perMonthOf(t), `${seconds} s`]);
  }
  table(out, ["grain", "method", "recall >=4", "false episodes / 30 d", "time"], rows, markdown);
  out();
}

const recallOf = (t: Tally) => `${ratio(t.found4, t.planted4)} (${t.found4}/${t.planted4})`;
const perMonthOf = (t: Tally) => `${perMonth(t.falseEpisodes, t.detectionDays)} (${t.falseEpisodes})`;

/** The real set (its protocol's counting) judged as scans judge it, beside the protocol's z-score. */
export function printRealScanShaped(out: Out, table: Table, data: Record<Grain, NabSeries[]>, markdown: boolean): void {
  out(`### The real series as a scan judges them (--scan-shaped)`);
  out();
  out(`Every bucket judged by the scans that read it (as the generated series below), counted by the protocol above.`);
  out();
  const rows: string[][] = [];
  for (const grain of GRAINS) {
    const k = defaultAnomalySettings(grain).sensitivity;
    const tallies = new Map<string, { ours: NabTally; z: NabTally }>();
    for (const series of data[grain]) {
      const ours = tallyNab(series, scanFlags(series.starts, series.values, series.kind, grain, 0, k));
      const z = tallyNab(series, protocolZScore(series.values, grain === "hour" ? 336 : 14));
      for (const family of ["all", series.family]) {
        if (!tallies.has(family)) tallies.set(family, { ours: emptyNabTally(), z: emptyNabTally() });
        addNabTally(tallies.get(family)!.ours, ours);
        addNabTally(tallies.get(family)!.z, z);
      }
    }
    for (const family of ["all", ...NAB_FAMILIES]) {
      const t = tallies.get(family);
      if (t === undefined) continue;
      rows.push([
        grain,
        family,
        `${t.ours.found}/${t.ours.windows}`,
        `${nabPerMonth(t.ours)} (${t.ours.episodes})`,
        `${t.z.found}/${t.z.windows}`,
        `${nabPerMonth(t.z)} (${t.z.episodes})`,
      ]);
    }
  }
  table(out, ["grain", "family", "ours: found", "ours: false / 30 d", "z-score: found", "z-score: false / 30 d"], rows, markdown);
  out();
}
