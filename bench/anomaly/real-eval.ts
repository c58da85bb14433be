// The real-data section of `npm run eval:anomaly`: the production scoreSeries beside the protocol's
// z-score on the NAB development set (nab.ts), per grain and per family, with the targets of issue 18.
import { defaultAnomalySettings } from "../../src/anomaly/defaults.js";
import { scoreSeries } from "../../src/anomaly/score-series.js";
import type { AnomalySettings, Grain } from "../../src/anomaly/types.js";
import {
  addNabTally,
  emptyNabTally,
  loadNab,
  NAB_FAMILIES,
  perMonth,
  protocolZScore,
  tallyNab,
  type NabSeries,
  type NabTally,
} from "./nab.js";

export type Out = (line?: string) => void;
export type Table = (out: Out, header: string[], rows: string[][], markdown: boolean) => void;
const GRAINS: readonly Grain[] = ["day", "hour"];

export interface RealResult {
  /** Keyed `${grain}|${family or "all"}|${method}`. */
  tallies: Map<string, NabTally>;
  ms: number;
}

/** Flags of the production function: one call per series, every bucket a detection bucket (a backtest). */
export function ourFlags(series: NabSeries, overrides: Partial<AnomalySettings> = {}): Uint8Array {
  const settings = { ...defaultAnomalySettings(series.grain), ...overrides, detection_buckets: series.starts.length };
  const verdict = scoreSeries({ starts: series.starts, values: series.values }, settings, series.kind);
  return Uint8Array.from(verdict.buckets, (b) => (b.anomalous ? 1 : 0));
}

export function evaluateReal(
  data: Record<Grain, NabSeries[]>,
  overrides: Partial<Record<Grain, Partial<AnomalySettings>>> = {},
): RealResult {
  const tallies = new Map<string, NabTally>();
  const add = (k: string, t: NabTally) => {
    if (!tallies.has(k)) tallies.set(k, emptyNabTally());
    addNabTally(tallies.get(k)!, t);
  };
  let ms = 0;
  for (const grain of GRAINS)
    for (const series of data[grain]) {
      const t0 = performance.now();
      const ours = ourFlags(series, overrides[grain]);
      ms += performance.now() - t0;
      const z = protocolZScore(series.values, grain === "hour" ? 336 : 14);
      for (const [method, flags] of [
        ["ours", ours],
        ["z-score", z],
      ] as const) {
        const t = tallyNab(series, flags);
        add(`${grain}|all|${method}`, t);
        add(`${grain}|${series.family}|${method}`, t);
      }
    }
  return { tallies, ms };
}

export function loadReal(dir: string): Record<Grain, NabSeries[]> {
  return { day: loadNab(dir, "day"), hour: loadNab(dir, "hour") };
}

/** Targets: windows >= the z-score's and episodes <= its, strictly better on one. */
export function realTargetMet(ours: NabTally, z: NabTally): boolean {
  return ours.found >= z.found && ours.episodes <= z.episodes && (ours.found > z.found || ours.episodes < z.episodes);
}

export function printReal(out: Out, table: Table, dir: string, data: Record<Grain, NabSeries[]>, markdown: boolean): boolean {
  const { tallies, ms } = evaluateReal(data);
  const get = (k: string) => tallies.get(k) ?? emptyNabTally();
  out(`## Real labelled series (NAB development set, ${dir})`);
  out();
  out(
    `${data.day.length} series; protocol of its README: tweets summed per bucket (empty = 0), others averaged (empty = no value); every bucket judged on the buckets before it; the first 14 days after the first row not scored.`,
  );
  out(
    `Ours: scoreSeries with defaultAnomalySettings(grain), detection_buckets covering the series. z-score: 14 days, population sd, |z| > 3.`,
  );
  out(`Windows found / labelled windows after the warm-up; false-alarm episodes per 30 scored days (episodes in brackets).`);
  out();
  const rows: string[][] = [];
  let allMet = true;
  for (const grain of GRAINS)
    for (const family of ["all", ...NAB_FAMILIES]) {
      const o = get(`${grain}|${family}|ours`);
      const z = get(`${grain}|${family}|z-score`);
      const met = realTargetMet(o, z);
      if (family === "all") allMet &&= met;
      rows.push([
        grain,
        family,
        `${o.found}/${o.windows}`,
        `${perMonth(o)} (${o.episodes})`,
        `${z.found}/${z.windows}`,
        `${perMonth(z)} (${z.episodes})`,
        family === "all" ? (met ? "met" : "NOT MET") : met ? "(better)" : "",
      ]);
    }
  table(out, ["grain", "family", "ours: found", "ours: false / 30 d", "z-score: found", "z-score: false / 30 d", "target"], rows, markdown);
  out();
  out(
    `Target (both grains): windows found >= the z-score's and false-alarm episodes <= its, strictly better on one: ${allMet ? "met" : "NOT MET"}. Scoring took ${ms.toFixed(0)} ms.`,
  );
  out();
  return allMet;
}

const GRID: Record<Grain, number[]> = { day: [2.5, 2.75, 2.9, 3, 3.25, 3.5], hour: [2.75, 3, 3.25, 3.5, 3.75, 4, 4.5] };

/**
 * Leave one family out: for each family, the sensitivity is chosen on the other three (the
 * smallest on the grid whose false-alarm episodes there are at most the z-score's, the most
 * windows on ties; else the largest), and the held-out family is scored with it. Shows whether
 * the defaults carry to series the choice never saw.
 */
export function printLeaveOneFamilyOut(out: Out, table: Table, data: Record<Grain, NabSeries[]>, markdown: boolean): void {
  out(`## Leave one family out (real series)`);
  out();
  out(
    `Sensitivity chosen on the other three families (grid: day ${GRID.day.join(", ")}; hour ${GRID.hour.join(", ")}), then the held-out family scored with it.`,
  );
  out();
  const rows: string[][] = [];
  for (const grain of GRAINS) {
    const series = data[grain];
    const z = series.map((s) => tallyNab(s, protocolZScore(s.values, grain === "hour" ? 336 : 14)));
    const byK = GRID[grain].map((k) => series.map((s) => tallyNab(s, ourFlags(s, { sensitivity: k }))));
    const sum = (tallies: NabTally[], keep: (s: NabSeries) => boolean) => {
      const t = emptyNabTally();
      tallies.forEach((x, i) => keep(series[i]!) && addNabTally(t, x));
      return t;
    };
    for (const family of NAB_FAMILIES) {
      const others = (s: NabSeries) => s.family !== family;
      const zOthers = sum(z, others);
      let chosen = GRID[grain].length - 1;
      let best = -1;
      GRID[grain].forEach((_, g) => {
        const t = sum(byK[g]!, others);
        if (t.episodes <= zOthers.episodes && t.found > best) {
          best = t.found;
          chosen = g;
        }
      });
      const mine = (s: NabSeries) => s.family === family;
      const o = sum(byK[chosen]!, mine);
      const zf = sum(z, mine);
      rows.push([
        grain,
        family,
        String(GRID[grain][chosen]),
        `${o.found}/${o.windows}`,
        `${perMonth(o)} (${o.episodes})`,
        `${zf.found}/${zf.windows}`,
        `${perMonth(zf)} (${zf.episodes})`,
      ]);
    }
  }
  table(
    out,
    ["grain", "held out", "sensitivity chosen", "ours: found", "ours: false / 30 d", "z-score: found", "z-score: false / 30 d"],
    rows,
    markdown,
  );
  out();
}
