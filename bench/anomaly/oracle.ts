// The ceiling of any band detector on the generated series: one that knows the noise-free level.
import type { GeneratedSeries } from "./generate.js";
import { SHIFT_WINDOW } from "./score-metrics.js";

/** The inner band of the pair rule, as the production method (src/anomaly/pair-rule.ts). */
const PAIR_RATIO = 0.6;

/**
 * Flags of an oracle that knows what no method can estimate better: the noise-free value of every
 * bucket (trend, drift, cycles; a level shift only after the window in which a flag counts as
 * found, as a method that re-learns it) and the noise's robust sd. It does not know the holidays
 * (no method here is given a calendar). Band = expected ± k·sd, plus the production pair rule.
 * The band is symmetric even for sparse counts, and one k serves every family: a method that also
 * knew each family's tail could do a little better, none that estimates the level can do much better.
 */
export function oracleFlags(series: GeneratedSeries, k: number): Uint8Array {
  const { values, clean, holiday, noise, anomalies, grain } = series;
  const n = values.length;
  const expected = Float64Array.from(clean, (c, i) => c / holiday[i]!);
  for (const anomaly of anomalies) {
    if (anomaly.shift === undefined) continue;
    const { factor, offset } = anomaly.shift;
    for (let i = anomaly.at; i < Math.min(n, anomaly.at + SHIFT_WINDOW[grain]); i++) expected[i] = (expected[i]! - offset) / factor;
  }
  const flags = new Uint8Array(n);
  let previousSide = 0;
  for (let i = 0; i < n; i++) {
    const z = (values[i]! - expected[i]!) / noise[i]!;
    const inner = z > PAIR_RATIO * k ? 1 : z < -PAIR_RATIO * k ? -1 : 0;
    if (Math.abs(z) > k) flags[i] = 1;
    if (inner !== 0 && inner === previousSide) flags[i] = flags[i - 1] = 1;
    previousSide = inner;
  }
  return flags;
}
