// Young real series: the NAB development set's daily series, each started a few weeks before one
// of its labelled windows, so that the window falls on day 14 to 28 of a series that starts there.
// What a new metric's first weeks look like on real data, beside the protocol's z-score.
import { defaultAnomalySettings } from "../../src/anomaly/defaults.js";
import { scoreSeries } from "../../src/anomaly/score-series.js";
import { protocolZScore, type NabSeries } from "./nab.js";
import type { Out, Table } from "./real-eval.js";

/** The day of the young series a window starts on. */
const WINDOW_DAYS = [14, 17, 20, 24, 28] as const;
/** Days scored after the window's start (a window lasts a few days). */
const AFTER_DAYS = 14;

interface YoungRealTally {
  cuts: number;
  found: number;
  falseDays: number;
  days: number;
}

export function evaluateYoungReal(series: readonly NabSeries[]): Record<"ours" | "z-score", YoungRealTally> {
  const tallies = {
    ours: { cuts: 0, found: 0, falseDays: 0, days: 0 },
    "z-score": { cuts: 0, found: 0, falseDays: 0, days: 0 },
  };
  for (const s of series) {
    const inWindow = (t: number) => s.windows.some(([a, b]) => t >= a && t <= b);
    for (const [windowStart, windowEnd] of s.windows) {
      const at = s.starts.findIndex((t) => t >= windowStart);
      for (const day of WINDOW_DAYS) {
        const from = at - day;
        if (at < 0 || from < 0) continue;
        const to = Math.min(s.starts.length, at + AFTER_DAYS);
        const starts = s.starts.slice(from, to);
        const values = s.values.slice(from, to);
        const verdict = scoreSeries({ starts, values }, { ...defaultAnomalySettings("day"), detection_buckets: values.length }, s.kind);
        const flags = {
          ours: Uint8Array.from(verdict.buckets, (b) => (b.anomalous ? 1 : 0)),
          "z-score": protocolZScore(values, 14),
        };
        for (const method of ["ours", "z-score"] as const) {
          const f = flags[method];
          const t = tallies[method];
          t.cuts++;
          let found = false;
          for (let k = day; k < values.length && starts[k]! <= windowEnd; k++) found ||= f[k] === 1;
          if (found) t.found++;
          // False alarms: the days judged before the window that lie in no window.
          for (let k = 14; k < day; k++) {
            t.days++;
            if (f[k] === 1 && !inWindow(starts[k]!)) t.falseDays++;
          }
        }
      }
    }
  }
  return tallies;
}

export function printYoungReal(out: Out, table: Table, series: readonly NabSeries[], markdown: boolean): void {
  out(`### Young real series (day grain)`);
  out();
  out(
    `Each labelled window of the daily series above, with the series started ${WINDOW_DAYS.join(", ")} days before it (a new metric judged from day 14) and cut ${AFTER_DAYS} days after its start. ` +
      `Found: a flagged bucket from the window's start to its end. False alarms: flagged days before the window, in no window, per 30 days.`,
  );
  out();
  const tallies = evaluateYoungReal(series);
  const rows = (["ours", "z-score"] as const).map((method) => {
    const t = tallies[method];
    return [method, `${t.found}/${t.cuts}`, ((30 * t.falseDays) / t.days).toFixed(3)];
  });
  table(out, ["method", "windows found", "false-alarm days / 30 d"], rows, markdown);
  out();
}
