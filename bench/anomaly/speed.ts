// Production-shaped timing: many short series as a scan scores them, and one long backtest.
import { defaultAnomalySettings } from "../../src/anomaly/defaults.js";
import { scoreSeries } from "../../src/anomaly/score-series.js";
import type { Grain } from "../../src/anomaly/types.js";
import { generateSeries } from "./generate.js";
import { zScoreFlags } from "./z-score.js";

export function printSpeed(out: (line?: string) => void, markdown: boolean): void {
  out(markdown ? "## Speed" : "## Speed (same process, same machine)");
  out();
  for (const grain of ["hour", "day"] as const) {
    const settings = defaultAnomalySettings(grain);
    const length = settings.training_buckets + settings.detection_buckets + (grain === "hour" ? 24 : 0);
    const count = 2_000;
    const series = Array.from({ length: 40 }, (_, s) => generateSeries(9_000 + s, grain, s % 2 === 0 ? "orders" : "revenue", "spike"));
    const inputs = series.map((g) => ({ starts: g.starts.slice(-length), values: g.values.slice(-length), kind: g.kind }));
    const t0 = performance.now();
    let flagged = 0;
    for (let k = 0; k < count; k++) {
      const input = inputs[k % inputs.length]!;
      flagged += scoreSeries(input, settings, input.kind).anomalous;
    }
    const ours = performance.now() - t0;
    const t1 = performance.now();
    for (let k = 0; k < count; k++) zScoreFlags(inputs[k % inputs.length]!.values, 14 * (grain === "hour" ? 24 : 1));
    const z = performance.now() - t1;
    out(`${grain}: ${count} series of ${length} buckets (detection ${settings.detection_buckets}): ours ${ours.toFixed(0)} ms (${((ours / count) * 20_000 / 1000).toFixed(2)} s per 20,000 series), z-score ${z.toFixed(0)} ms; ${flagged} flags.`);
  }
  const backtest = backtestSeries("hour", 10_000);
  const t0 = performance.now();
  const verdict = scoreSeries(backtest, { ...defaultAnomalySettings("hour"), detection_buckets: 10_000 }, "count");
  const ms = performance.now() - t0;
  out(`backtest: one hourly series, 10,000 detection buckets after 336 of training: ${ms.toFixed(0)} ms (${verdict.scored} scored).`);
  out();
}

function backtestSeries(grain: Grain, detection: number): { starts: number[]; values: number[] } {
  const g = generateSeries(4_242, grain, "orders", "spike");
  const starts: number[] = [];
  const values: number[] = [];
  const total = detection + defaultAnomalySettings(grain).training_buckets;
  for (let i = 0; i < total; i++) {
    starts.push(g.starts[0]! + i * 3_600_000);
    values.push(g.values[i % g.values.length]!);
  }
  return { starts, values };
}
