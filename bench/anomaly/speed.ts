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
    // Warm the JIT up first; then CPU time, which other processes on a shared machine do not inflate.
    for (let k = 0; k < 200; k++) scoreSeries(inputs[k % inputs.length]!, settings, inputs[k % inputs.length]!.kind);
    let flagged = 0;
    const ours = cpuMs(() => {
      for (let k = 0; k < count; k++) {
        const input = inputs[k % inputs.length]!;
        flagged += scoreSeries(input, settings, input.kind).anomalous;
      }
    });
    const z = cpuMs(() => {
      for (let k = 0; k < count; k++) zScoreFlags(inputs[k % inputs.length]!.values, 14 * (grain === "hour" ? 24 : 1));
    });
    out(
      `${grain}: ${count} series of ${length} buckets (detection ${settings.detection_buckets}): ours ${ours.toFixed(0)} ms CPU (${((ours / count) * 1000).toFixed(0)} µs a series, ${(((ours / count) * 20_000) / 1000).toFixed(1)} s per 20,000 series), z-score ${z.toFixed(0)} ms; ${flagged} flags.`,
    );
  }
  const backtest = backtestSeries("hour", 10_000);
  let scored = 0;
  const ms = cpuMs(() => {
    scored = scoreSeries(backtest, { ...defaultAnomalySettings("hour"), detection_buckets: 10_000 }, "count").scored;
  });
  out(`backtest: one hourly series, 10,000 detection buckets after 336 of training: ${ms.toFixed(0)} ms CPU (${scored} scored).`);
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

function cpuMs(work: () => void): number {
  const start = process.cpuUsage();
  work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}
