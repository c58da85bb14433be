import type { SeriesKind } from "./types.js";

/**
 * The space the baseline is fitted in: y = log(x + offset), or x itself. Business series are
 * multiplicative (a 20% growth lifts the afternoon peak more than the night), so level, trend and
 * seasonal effects are fitted on a log scale: log1p for counts (offset 1, defined at 0), log for
 * values that are positive throughout, identity for values that go below 0. A value series that is
 * positive but for a few zeros (a sum whose load went missing) keeps the log scale with an offset
 * of 1% of its median: those zeros read as the deep drops they are, instead of forcing the whole
 * series onto an additive scale that cannot carry its multiplicative cycles. The band itself is
 * drawn in the original units (score-bucket.ts).
 */
export interface FitSpace {
  log: boolean;
  /** Added before the log (0 for positive values, 1 for counts). */
  offset: number;
  /** log1p of counts: the band gets a Poisson part. */
  counts: boolean;
}

/** Above this share of zeros a non-negative value series is fitted on the identity scale (sparse sums). */
const MAX_ZERO_SHARE = 0.05;
const ZERO_OFFSET = 0.01;

export function fitSpaceOf(values: readonly number[], kind: SeriesKind): FitSpace {
  let negative = 0;
  let zeros = 0;
  let finite = 0;
  const positives: number[] = [];
  for (const value of values) {
    if (!Number.isFinite(value)) continue;
    finite++;
    if (value < 0) negative++;
    else if (value === 0) zeros++;
    else if (kind === "value") positives.push(value);
  }
  if (negative > 0) return { log: false, offset: 0, counts: false };
  if (kind === "count") return { log: true, offset: 1, counts: true };
  if (zeros === 0) return { log: true, offset: 0, counts: false };
  if (zeros > MAX_ZERO_SHARE * finite || positives.length === 0) return { log: false, offset: 0, counts: false };
  positives.sort((a, b) => a - b);
  return { log: true, offset: ZERO_OFFSET * positives[positives.length >> 1]!, counts: false };
}

export function toFitSpace(space: FitSpace, x: number): number {
  return space.log ? Math.log(x + space.offset) : x;
}

export function fromFitSpace(space: FitSpace, y: number): number {
  return space.log ? Math.exp(y) - space.offset : y;
}
