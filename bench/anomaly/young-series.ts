// Young series: what a metric shows in its first five weeks, judged from day 14. Each planted
// anomaly of the generated series is cut out with the weeks before it, so that it falls on one day
// of days 14 to 34 of a series that starts there (at its own hour); both methods see only that slice.
import { defaultAnomalySettings } from "../../src/anomaly/defaults.js";
import { scoreSeries } from "../../src/anomaly/score-series.js";
import type { Grain } from "../../src/anomaly/types.js";
import { ANOMALY_KINDS, FAMILIES, generateSeries, type GenerateOptions } from "./generate.js";
import { GAP_FAMILIES, GRAINS, seedOf, type Method } from "./evaluate.js";
import type { Out, Table } from "./real-eval.js";
import { FOUND_WITHIN } from "./score-metrics.js";
import { zScoreFlags } from "./z-score.js";

/** Days 14-20 cannot test the weekday effect yet (three weeks); days 21-34 can. */
const PHASES = [
  { name: "days 14-20", from: 14, to: 21 },
  { name: "days 21-34", from: 21, to: 35 },
] as const;
const AFTER_DAYS = 7;
const PER_DAY: Record<Grain, number> = { hour: 24, day: 1 };

interface PhaseTally {
  planted4: number;
  found4: number;
  /** Runs of flagged buckets that are not the anomaly's, nor a holiday or a burst. */
  falseEpisodes: number;
  buckets: number;
}

export type YoungTallies = Record<Grain, Record<Method, PhaseTally[]>>;

const emptyPhases = (): PhaseTally[] => PHASES.map(() => ({ planted4: 0, found4: 0, falseEpisodes: 0, buckets: 0 }));

export function evaluateYoung(series: number, generate: GenerateOptions): YoungTallies {
  const tallies = {} as YoungTallies;
  for (const grain of GRAINS) {
    tallies[grain] = { ours: emptyPhases(), "z-score": emptyPhases() };
    const settings = defaultAnomalySettings(grain);
    const perDay = PER_DAY[grain];
    let cut = 0;
    for (const kind of ANOMALY_KINDS) {
      const families = kind === "gap" ? GAP_FAMILIES : FAMILIES;
      for (let s = 0; s < series; s++) {
        const g = generateSeries(seedOf(grain, kind, s), grain, families[s % families.length]!, kind, generate);
        for (const anomaly of g.anomalies) {
          // The day of the young series the anomaly falls on: 14 to 34, in turn; the series starts
          // at a midnight (UTC), as a new table's first day does.
          const day = 14 + (cut++ % 21);
          const at = day * perDay + (g.starts[anomaly.at]! % 86_400_000) / (86_400_000 / perDay);
          const from = anomaly.at - at;
          const to = Math.min(g.values.length, anomaly.at + AFTER_DAYS * perDay);
          if (from < 0) continue;
          const values = g.values.slice(from, to);
          const starts = g.starts.slice(from, to);
          const verdict = scoreSeries({ starts, values }, { ...settings, detection_buckets: values.length }, g.kind);
          const flags: Record<Method, ArrayLike<number>> = {
            ours: Uint8Array.from(verdict.buckets, (b) => (b.anomalous ? 1 : 0)),
            "z-score": zScoreFlags(values, 14 * perDay),
          };
          const own = anomaly.kind === "level_shift" ? FOUND_WITHIN[grain] : anomaly.length;
          const phase = PHASES.findIndex((p) => day >= p.from && day < p.to);
          for (const method of ["ours", "z-score"] as const) {
            const f = flags[method];
            const t = tallies[grain][method];
            let found = false;
            for (let k = at; k < Math.min(values.length, at + own); k++) found ||= f[k] === 1;
            if (anomaly.magnitude >= 4) {
              t[phase]!.planted4++;
              if (found) t[phase]!.found4++;
            }
            // False alarms: the buckets before the anomaly (no other planted change is that close).
            const falseFlag = (j: number) => f[j] === 1 && g.benign[from + j] === 0;
            for (const [p, { from: a, to: b }] of PHASES.entries())
              for (let k = a * perDay; k < Math.min(b * perDay, at); k++) {
                t[p]!.buckets++;
                if (falseFlag(k) && !(k > a * perDay && falseFlag(k - 1))) t[p]!.falseEpisodes++;
              }
          }
        }
      }
    }
  }
  return tallies;
}

export function printYoung(out: Out, table: Table, series: number, generate: GenerateOptions, markdown: boolean): void {
  out(`## Young series (judged from day 14)`);
  out();
  out(
    `Each planted anomaly of the series above, cut out with 14 to 34 days of history before it (in turn; the series starting at a UTC midnight) so that it falls on day 14 to 34 of a series that starts there, ` +
      `and the ${AFTER_DAYS} days after. False-alarm episodes: runs of flags before the anomaly, on no holiday or burst, per 30 days.`,
  );
  out();
  const young = evaluateYoung(series, generate);
  const rows: string[][] = [];
  for (const grain of GRAINS)
    for (const [p, phase] of PHASES.entries())
      for (const method of ["ours", "z-score"] as const) {
        const t = young[grain][method][p]!;
        rows.push([
          grain,
          phase.name,
          method,
          `${(t.found4 / t.planted4).toFixed(3)} (${t.found4}/${t.planted4})`,
          ((30 * PER_DAY[grain] * t.falseEpisodes) / t.buckets).toFixed(3),
        ]);
      }
  table(out, ["grain", "anomaly on", "method", "recall >=4", "false episodes / 30 d"], rows, markdown);
  out();
}
