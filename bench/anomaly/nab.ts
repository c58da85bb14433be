// The real labelled series of ../shared/data/nab-dev, bucketed and scored by the protocol in its README.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Grain, SeriesKind } from "../../src/anomaly/types.js";

const HOUR = 3_600_000;
const DAY = 86_400_000;
const WARMUP = 14 * DAY;

export type NabFamily = "tweets" | "ad exchange" | "known cause" | "traffic";
export const NAB_FAMILIES: readonly NabFamily[] = ["tweets", "ad exchange", "known cause", "traffic"];
const FOLDERS: Record<string, NabFamily> = {
  realTweets: "tweets",
  realAdExchange: "ad exchange",
  realKnownCause: "known cause",
  realTraffic: "traffic",
};

export interface NabSeries {
  file: string;
  family: NabFamily;
  grain: Grain;
  kind: SeriesKind;
  starts: number[];
  /** Sum per bucket (tweets, empty = 0) or mean per bucket (empty = NaN). */
  values: number[];
  /** Buckets from here on are scored (start at or after the first row + 14 days). */
  scoredFrom: number;
  /**
   * Scored days: UTC days that start at or after the first row + 14 days, up to the last row's day
   * (the day grain's scored buckets; the same at both grains, as the README's figures count them).
   */
  scoredDays: number;
  /** Labelled windows that start after the warm-up: [start floored to the grain, end], epoch ms. */
  windows: [number, number][];
}

/**
 * The data folder: `--nab DIR` (or NAB_DIR), else ../shared/data/nab-dev from the repository root,
 * else /work/shared/data/nab-dev. null when none exists.
 */
export function findNabDir(explicit: string | null): string | null {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
  const candidates = explicit !== null ? [resolve(explicit)] : [resolve(root, "../shared/data/nab-dev"), "/work/shared/data/nab-dev"];
  return candidates.find((dir) => existsSync(join(dir, "windows.json"))) ?? null;
}

const parseTime = (text: string) => Date.parse(`${text.trim().slice(0, 19).replace(" ", "T")}Z`);

export function loadNab(dir: string, grain: Grain): NabSeries[] {
  const labels = JSON.parse(readFileSync(join(dir, "windows.json"), "utf8")) as Record<string, [string, string][]>;
  const size = grain === "hour" ? HOUR : DAY;
  const out: NabSeries[] = [];
  for (const [folder, family] of Object.entries(FOLDERS)) {
    const path = join(dir, folder);
    if (!existsSync(path)) continue;
    for (const name of readdirSync(path)
      .filter((f) => f.endsWith(".csv"))
      .sort()) {
      const file = `${folder}/${name}`;
      const rows = readFileSync(join(path, name), "utf8").trim().split("\n").slice(1);
      const times = rows.map((row) => parseTime(row.split(",")[0]!));
      const raw = rows.map((row) => Number(row.split(",")[1]));
      const first = Math.min(...times);
      const from = Math.floor(first / size) * size;
      const n = Math.floor(Math.max(...times) / size) - from / size + 1;
      const sum = new Float64Array(n);
      const count = new Int32Array(n);
      for (let k = 0; k < times.length; k++) {
        if (!Number.isFinite(raw[k]!)) continue;
        const b = Math.floor((times[k]! - from) / size);
        sum[b]! += raw[k]!;
        count[b]!++;
      }
      const kind: SeriesKind = family === "tweets" ? "count" : "value";
      const starts = Array.from({ length: n }, (_, b) => from + b * size);
      const values = Array.from(sum, (s, b) => (kind === "count" ? s : count[b]! > 0 ? s / count[b]! : Number.NaN));
      const warm = first + WARMUP;
      const scoredFrom = starts.findIndex((s) => s >= warm);
      const windows = (labels[file] ?? [])
        .map(([a, b]) => [parseTime(a), parseTime(b)] as const)
        .filter(([a]) => a >= warm)
        .map(([a, b]): [number, number] => [Math.floor(a / size) * size, b]);
      const scoredDays = Math.max(0, Math.floor(Math.max(...times) / DAY) - Math.ceil(warm / DAY) + 1);
      out.push({ file, family, grain, kind, starts, values, scoredFrom: scoredFrom < 0 ? n : scoredFrom, scoredDays, windows });
    }
  }
  return out;
}

export interface NabTally {
  windows: number;
  found: number;
  episodes: number;
  scoredDays: number;
}

export const emptyNabTally = (): NabTally => ({ windows: 0, found: 0, episodes: 0, scoredDays: 0 });

export function addNabTally(into: NabTally, from: NabTally): void {
  into.windows += from.windows;
  into.found += from.found;
  into.episodes += from.episodes;
  into.scoredDays += from.scoredDays;
}

/** Windows found and false-alarm episodes of one detector's flags (1 = flagged) on one series. */
export function tallyNab(series: NabSeries, flags: ArrayLike<number>): NabTally {
  const { starts, scoredFrom, windows } = series;
  const n = starts.length;
  const inWindow = (t: number) => windows.some(([a, b]) => t >= a && t <= b);
  let found = 0;
  for (const [a, b] of windows) {
    let hit = false;
    for (let i = scoredFrom; i < n && !hit; i++) if (flags[i] === 1 && starts[i]! >= a && starts[i]! <= b) hit = true;
    if (hit) found++;
  }
  let episodes = 0;
  for (let i = scoredFrom; i < n; i++) {
    if (flags[i] !== 1 || (i > scoredFrom && flags[i - 1] === 1)) continue;
    if (!inWindow(starts[i]!)) episodes++;
  }
  return { windows: windows.length, found, episodes, scoredDays: series.scoredDays };
}

/**
 * The protocol's baseline: mean and population sd of the previous 14 days of buckets (buckets
 * without a value skipped; at least 3 values), flagged when |z| > 3, nothing excluded.
 */
export function protocolZScore(values: readonly number[], window: number, threshold = 3): Uint8Array {
  const n = values.length;
  const flags = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const value = values[i]!;
    if (!Number.isFinite(value)) continue;
    let sum = 0;
    let count = 0;
    for (let j = Math.max(0, i - window); j < i; j++)
      if (Number.isFinite(values[j]!)) {
        sum += values[j]!;
        count++;
      }
    if (count < 3) continue;
    const mean = sum / count;
    let squares = 0;
    for (let j = Math.max(0, i - window); j < i; j++) if (Number.isFinite(values[j]!)) squares += (values[j]! - mean) ** 2;
    const sd = Math.sqrt(squares / count);
    if (sd > 0 && Math.abs(value - mean) > threshold * sd) flags[i] = 1;
  }
  return flags;
}

export const perMonth = (t: NabTally) => (t.scoredDays === 0 ? "-" : ((30 * t.episodes) / t.scoredDays).toFixed(2));
