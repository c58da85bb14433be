// Young daily series: what a metric shows in its first five weeks, judged from day 14. Each planted
// anomaly of the generated daily series is cut out with the weeks before it, so that it falls on
// one day of days 14 to 34 of a series that starts there; both methods see only that slice.
import { defaultAnomalySettings } from "../../src/anomaly/defaults.js";
import { scoreSeries } from "../../src/anomaly/score-series.js";
import { ANOMALY_KINDS, FAMILIES, generateSeries, type GenerateOptions } from "./generate.js";
import { GAP_FAMILIES, seedOf, type Method } from "./evaluate.js";
import { FOUND_WITHIN } from "./score-metrics.js";
import { zScoreFlags } from "./z-score.js";

type Out = (line?: string) => void;
type Table = (out: Out, header: string[], rows: string[][], markdown: boolean) => void;

/** Days 14-20 cannot test the weekday effect yet (three weeks); days 21-34 can. */
const PHASES = [
  { name: "days 14-20", from: 14, to: 21 },
  { name: "days 21-34", from: 21, to: 35 },
] as const;
const AFTER_DAYS = 7;

interface PhaseTally {
  planted4: number;
  found4: number;
  /** Flagged days that are not the anomaly's, nor a holiday or a burst. */
  falseFlags: number;
  days: number;
}

export type YoungTallies = Record<Method, PhaseTally[]>;

export function evaluateYoung(series: number, generate: GenerateOptions): YoungTallies {
  const tallies: YoungTallies = {
    ours: PHASES.map(() => ({ planted4: 0, found4: 0, falseFlags: 0, days: 0 })),
    "z-score": PHASES.map(() => ({ planted4: 0, found4: 0, falseFlags: 0, days: 0 })),
  };
  const settings = defaultAnomalySettings("day");
  let cut = 0;
  for (const kind of ANOMALY_KINDS) {
    const families = kind === "gap" ? GAP_FAMILIES : FAMILIES;
    for (let s = 0; s < series; s++) {
      const g = generateSeries(seedOf("day", kind, s), "day", families[s % families.length]!, kind, generate);
      for (const anomaly of g.anomalies) {
        // The day of the young series the anomaly falls on: 14 to 34, in turn.
        const day = 14 + (cut++ % 21);
        const from = anomaly.at - day;
        const to = Math.min(g.values.length, anomaly.at + AFTER_DAYS);
        if (from < 0) continue;
        const values = g.values.slice(from, to);
        const starts = g.starts.slice(from, to);
        const verdict = scoreSeries({ starts, values }, { ...settings, detection_buckets: values.length }, g.kind);
        const flags: Record<Method, ArrayLike<number>> = {
          ours: Uint8Array.from(verdict.buckets, (b) => (b.anomalous ? 1 : 0)),
          "z-score": zScoreFlags(values, 14),
        };
        const own = anomaly.kind === "level_shift" ? FOUND_WITHIN.day : anomaly.length;
        const phase = PHASES.findIndex((p) => day >= p.from && day < p.to);
        for (const method of ["ours", "z-score"] as const) {
          const f = flags[method];
          let found = false;
          for (let k = day; k < Math.min(values.length, day + own); k++) found ||= f[k] === 1;
          if (anomaly.magnitude >= 4) {
            tallies[method][phase]!.planted4++;
            if (found) tallies[method][phase]!.found4++;
          }
          // False alarms: the days before the anomaly (no other planted change is that close).
          for (const [p, { from: a, to: b }] of PHASES.entries())
            for (let k = a; k < Math.min(b, day); k++) {
              tallies[method][p]!.days++;
              if (f[k] === 1 && g.benign[from + k] === 0) tallies[method][p]!.falseFlags++;
            }
        }
      }
    }
  }
  return tallies;
}

export function printYoung(out: Out, table: Table, series: number, generate: GenerateOptions, markdown: boolean): void {
  out(`## Young daily series (judged from day 14)`);
  out();
  out(
    `Each planted anomaly of the daily series above, cut out with 14 to 34 days of history before it so that it falls on day 14 to 34 of a series that starts there (in turn), ` +
      `and the ${AFTER_DAYS} days after. False alarms: flags on the days before the anomaly that are neither a holiday nor a burst, per 30 days.`,
  );
  out();
  const young = evaluateYoung(series, generate);
  const rows: string[][] = [];
  for (const [p, phase] of PHASES.entries())
    for (const method of ["ours", "z-score"] as const) {
      const t = young[method][p]!;
      rows.push([
        phase.name,
        method,
        `${(t.found4 / t.planted4).toFixed(3)} (${t.found4}/${t.planted4})`,
        ((30 * t.falseFlags) / t.days).toFixed(3),
      ]);
    }
  table(out, ["anomaly on", "method", "recall >=4", "false-alarm days / 30 d"], rows, markdown);
  out();
}
