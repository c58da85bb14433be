// The second flagging rule: two buckets in a row beyond a narrower band, on the same side.
import type { MutableBand } from "./score-bucket.js";

/**
 * A bucket is flagged when it leaves the band (expected ± sensitivity·sd), or when it and the
 * bucket before it both leave the inner band (expected ± PAIR_RATIO·sensitivity·sd) on the same
 * side. A one-bucket excursion needs the full width; a change that lasts needs less per bucket:
 * under independent normal errors two buckets in a row beyond 0.7·3.25 = 2.3 sds on the same
 * side happen with probability 2·0.0115² ≈ 2.6e-4 per bucket, a fifth of one bucket beyond 3.25
 * sds (1.2e-3). docs/anomaly-eval.md measures it: it finds drops, gaps and level shifts that span
 * several buckets (hourly) and level shifts early (daily) at fewer false alarms than a narrower
 * single band would cost.
 */
export const PAIR_RATIO = 0.7;

export interface PairEdges {
  lower: number;
  upper: number;
}

/** Remembers the inner band of the previous scored bucket, so the pair can be judged at the next. */
export class PairRule {
  private side: -1 | 0 | 1 = 0;
  private index = -2;
  private readonly previous: PairEdges = { lower: 0, upper: 0 };

  /**
   * Records bucket i's position against its inner band and returns the side (±1) when bucket i - 1
   * was beyond its own inner band on the same side, else 0. `edges` receives bucket i - 1's inner
   * edges (to report the band it was flagged against).
   */
  observe(i: number, inner: MutableBand, edges: PairEdges): -1 | 0 | 1 {
    const confirmed = inner.side !== 0 && inner.side === this.side && this.index === i - 1 ? inner.side : 0;
    edges.lower = this.previous.lower;
    edges.upper = this.previous.upper;
    this.side = inner.side;
    this.index = i;
    this.previous.lower = inner.lower;
    this.previous.upper = inner.upper;
    return confirmed;
  }

  /** A bucket that was not scored breaks any pair. */
  reset(): void {
    this.side = 0;
    this.index = -2;
  }
}
