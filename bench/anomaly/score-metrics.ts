// Recall, precision and false-alarm episodes of one method's flags on one generated series.
import type { Grain } from "../../src/anomaly/types.js";
import { onHoliday, type AnomalyKind, type GeneratedSeries } from "./generate.js";

/** A level shift is found when flagged within its first FOUND_WITHIN buckets. */
export const FOUND_WITHIN: Record<Grain, number> = { hour: 6, day: 2 };
/**
 * Flags in a level shift's first SHIFT_WINDOW buckets are true (the time a method may take to
 * alarm and re-learn); flags after it are false alarms (alarming forever).
 */
export const SHIFT_WINDOW: Record<Grain, number> = { hour: 48, day: 7 };

export const MAGNITUDE_BINS = [
  { label: "3-4", low: 0, high: 4 },
  { label: "4-6", low: 4, high: 6 },
  { label: "6-10", low: 6, high: 10 },
  { label: ">=10", low: 10, high: Infinity },
] as const;

export interface Tally {
  planted: number;
  found: number;
  /** Planted and found with magnitude >= 4 robust deviations (the target's population). */
  planted4: number;
  found4: number;
  /** Of those, the ones with a bucket off the generator's holidays (what an exclusion can leave judged). */
  plantedOffHoliday4: number;
  foundOffHoliday4: number;
  binPlanted: number[];
  binFound: number[];
  flagged: number;
  truePositiveFlags: number;
  falseEpisodes: number;
  falseOnHoliday: number;
  falseOnBurst: number;
  detectionDays: number;
}

export function emptyTally(): Tally {
  return {
    planted: 0,
    found: 0,
    planted4: 0,
    found4: 0,
    plantedOffHoliday4: 0,
    foundOffHoliday4: 0,
    binPlanted: MAGNITUDE_BINS.map(() => 0),
    binFound: MAGNITUDE_BINS.map(() => 0),
    flagged: 0,
    truePositiveFlags: 0,
    falseEpisodes: 0,
    falseOnHoliday: 0,
    falseOnBurst: 0,
    detectionDays: 0,
  };
}

export function addTally(into: Tally, from: Tally): void {
  for (const key of [
    "planted",
    "found",
    "planted4",
    "found4",
    "plantedOffHoliday4",
    "foundOffHoliday4",
    "flagged",
    "truePositiveFlags",
    "falseEpisodes",
    "falseOnHoliday",
    "falseOnBurst",
    "detectionDays",
  ] as const)
    into[key] += from[key];
  for (let b = 0; b < MAGNITUDE_BINS.length; b++) {
    into.binPlanted[b]! += from.binPlanted[b]!;
    into.binFound[b]! += from.binFound[b]!;
  }
}

export function tallySeries(series: GeneratedSeries, flags: ArrayLike<number>): Tally {
  const { grain, detectionFrom, anomalies, benign } = series;
  const n = series.values.length;
  const truth = new Uint8Array(n);
  const tally = emptyTally();
  for (const anomaly of anomalies) {
    const window = anomaly.kind === "level_shift" ? SHIFT_WINDOW[grain] : anomaly.length;
    const foundWithin = anomaly.kind === "level_shift" ? FOUND_WITHIN[grain] : anomaly.length;
    for (let i = anomaly.at; i < Math.min(n, anomaly.at + window); i++) truth[i] = 1;
    let found = false;
    let offHoliday = false;
    for (let i = anomaly.at; i < Math.min(n, anomaly.at + foundWithin); i++) {
      if (flags[i] === 1) found = true;
      if (!onHoliday(series.starts[i]!)) offHoliday = true;
    }
    const bin = MAGNITUDE_BINS.findIndex((b) => anomaly.magnitude >= b.low && anomaly.magnitude < b.high);
    tally.planted++;
    tally.binPlanted[bin]!++;
    if (found) {
      tally.found++;
      tally.binFound[bin]!++;
    }
    if (anomaly.magnitude >= 4) {
      tally.planted4++;
      if (found) tally.found4++;
      if (offHoliday) {
        tally.plantedOffHoliday4++;
        if (found) tally.foundOffHoliday4++;
      }
    }
  }
  let episodeTrue = false;
  let episodeHoliday = false;
  let episodeBurst = false;
  let inEpisode = false;
  const close = () => {
    if (inEpisode && !episodeTrue) {
      tally.falseEpisodes++;
      if (episodeHoliday) tally.falseOnHoliday++;
      else if (episodeBurst) tally.falseOnBurst++;
    }
    inEpisode = episodeTrue = episodeHoliday = episodeBurst = false;
  };
  for (let i = detectionFrom; i < n; i++) {
    if (flags[i] !== 1) {
      close();
      continue;
    }
    tally.flagged++;
    if (truth[i] === 1) tally.truePositiveFlags++;
    inEpisode = true;
    episodeTrue ||= truth[i] === 1;
    episodeHoliday ||= benign[i] === 1;
    episodeBurst ||= benign[i] === 2;
  }
  close();
  tally.detectionDays = (n - detectionFrom) / (grain === "hour" ? 24 : 1);
  return tally;
}

/** numerator / denominator to three decimals; "-" for none. */
export function ratio(numerator: number, denominator: number): string {
  return denominator === 0 ? "-" : (numerator / denominator).toFixed(3);
}

/** False-alarm episodes per 30 days of judged series, to three decimals; "-" for none. */
export function perMonth(episodes: number, days: number): string {
  return days === 0 ? "-" : ((episodes / days) * 30).toFixed(3);
}

export type { AnomalyKind };
