// The generated series scored by both methods and tallied (run-eval.ts prints the tables).
import { defaultAnomalySettings } from "../../src/anomaly/defaults.js";
import { excludedStarts } from "../../src/anomaly/exclusions.js";
import { scoreSeries } from "../../src/anomaly/score-series.js";
import type { Grain } from "../../src/anomaly/types.js";
import {
  ANOMALY_KINDS,
  FAMILIES,
  generateSeries,
  HOLIDAY_EXCLUSIONS,
  type AnomalyKind,
  type Family,
  type GenerateOptions,
} from "./generate.js";
import { addTally, emptyTally, tallySeries, type Tally } from "./score-metrics.js";
import { zScoreFlags } from "./z-score.js";

export const GAP_FAMILIES: readonly Family[] = ["orders", "events", "revenue", "system_rows"];
export const GRAINS: readonly Grain[] = ["hour", "day"];
export type Method = "ours" | "z-score";

export interface Evaluation {
  tallies: Map<string, Tally>;
  familyTallies: Map<string, Tally>;
  time: Record<Method, number>;
  buckets: number;
}

export const key = (grain: Grain, kind: AnomalyKind | "all", method: Method) => `${grain}|${kind}|${method}`;

/**
 * Scores every generated series with ours (at `sensitivity`, or the grain's default) and the
 * z-score; with `calendar`, ours is told the generator's holidays (`anomalies.exclude`).
 */
export function evaluate(
  series: number,
  sensitivity: Partial<Record<Grain, number>>,
  generate: GenerateOptions,
  calendar = false,
): Evaluation {
  const tallies = new Map<string, Tally>();
  const familyTallies = new Map<string, Tally>();
  const time: Record<Method, number> = { ours: 0, "z-score": 0 };
  let buckets = 0;
  const add = (into: Map<string, Tally>, k: string, t: Tally) => {
    if (!into.has(k)) into.set(k, emptyTally());
    addTally(into.get(k)!, t);
  };
  for (const grain of GRAINS) {
    const settings = { ...defaultAnomalySettings(grain), ...(sensitivity[grain] === undefined ? {} : { sensitivity: sensitivity[grain] }) };
    const zWindow = 14 * (grain === "hour" ? 24 : 1);
    for (const kind of ANOMALY_KINDS) {
      const families = kind === "gap" ? GAP_FAMILIES : FAMILIES;
      for (let s = 0; s < series; s++) {
        const family = families[s % families.length]!;
        const generated = generateSeries(seedOf(grain, kind, s), grain, family, kind, generate);
        buckets += generated.values.length;
        const detection = generated.values.length - generated.detectionFrom;
        let t0 = performance.now();
        const verdict = scoreSeries(
          {
            starts: generated.starts,
            values: generated.values,
            ...(calendar ? { excluded_starts: excludedStarts(generated.starts, grain, { exclude: HOLIDAY_EXCLUSIONS }) } : {}),
          },
          { ...settings, detection_buckets: detection },
          generated.kind,
        );
        time.ours += performance.now() - t0;
        const ours = Uint8Array.from(verdict.buckets, (b) => (b.anomalous ? 1 : 0));
        t0 = performance.now();
        const z = zScoreFlags(generated.values, zWindow);
        time["z-score"] += performance.now() - t0;
        for (const [method, flags] of [
          ["ours", ours],
          ["z-score", z],
        ] as const) {
          const tally = tallySeries(generated, flags);
          add(tallies, key(grain, kind, method), tally);
          add(tallies, key(grain, "all", method), tally);
          add(familyTallies, `${grain}|${family}|${method}`, tally);
        }
      }
    }
  }
  return { tallies, familyTallies, time, buckets };
}

export function seedOf(grain: Grain, kind: AnomalyKind, index: number): number {
  return (grain === "hour" ? 1_000_000 : 2_000_000) + ANOMALY_KINDS.indexOf(kind) * 10_000 + index * 7919;
}
