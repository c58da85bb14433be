import type { SeriesKind } from "./types.js";

/**
 * The space the baseline is fitted in. Business series are multiplicative (a 20% growth lifts the
 * afternoon peak more than the night), so level, trend and seasonal effects are fitted on a log
 * scale: log1p for counts (defined at 0), log for values that are positive throughout, identity for
 * values that reach 0 or below. The band itself is drawn in the original units (score-bucket.ts).
 */
export type FitSpace = "log1p" | "log" | "identity";

export function fitSpaceOf(values: readonly number[], kind: SeriesKind): FitSpace {
  let allNonNegative = true;
  let allPositive = true;
  for (const value of values) {
    if (!Number.isFinite(value)) continue;
    if (value < 0) allNonNegative = false;
    if (value <= 0) allPositive = false;
  }
  if (kind === "count") return allNonNegative ? "log1p" : "identity";
  return allPositive ? "log" : "identity";
}

export function toFitSpace(space: FitSpace, x: number): number {
  return space === "log1p" ? Math.log1p(x) : space === "log" ? Math.log(x) : x;
}

export function fromFitSpace(space: FitSpace, y: number): number {
  return space === "log1p" ? Math.expm1(y) : space === "log" ? Math.exp(y) : y;
}
