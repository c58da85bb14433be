import { describe, expect, it } from "vitest";
import { freshnessVerdict } from "../../src/anomaly/freshness-cadence.js";

const HOUR = 3600;
const DAY = 24 * HOUR;
const jitter = (base: number, spread: number, n: number) => Array.from({ length: n }, (_, i) => base + spread * Math.sin(i * 1.7));

describe("freshnessVerdict", () => {
  it("a table loaded daily is not stale at 23 h nor 30 h, and is at 40 h", () => {
    const gaps = jitter(DAY, 0.5 * HOUR, 14);
    expect(freshnessVerdict(gaps, 23 * HOUR)).toMatchObject({ kind: "scored", stale: false });
    expect(freshnessVerdict(gaps, 30 * HOUR)).toMatchObject({ stale: false });
    const late = freshnessVerdict(gaps, 40 * HOUR);
    expect(late).toMatchObject({ stale: true });
    if (late.kind === "scored") expect(late.expected_gap / HOUR).toBeCloseTo(24, 0);
  });

  it("a table loaded every 5 minutes is stale at 1 h, and not after a 6-minute pause", () => {
    const gaps = jitter(300, 20, 14 * 288);
    expect(freshnessVerdict(gaps, HOUR)).toMatchObject({ stale: true });
    expect(freshnessVerdict(gaps, 360)).toMatchObject({ stale: false });
  });

  it("takes nights or weekends without loads as part of the cadence when they recur weekly", () => {
    // Loads every 10 minutes from 08:00 to 20:00 on weekdays; none at night or at weekends.
    const gaps: number[] = [];
    for (let day = 0; day < 14; day++) {
      const weekday = day % 7;
      if (weekday >= 5) continue;
      for (let k = 0; k < 72; k++) gaps.push(600);
      gaps.push(weekday === 4 ? 12 * HOUR + 2 * DAY : 12 * HOUR);
    }
    expect(freshnessVerdict(gaps, 14 * HOUR)).toMatchObject({ stale: false });
    expect(freshnessVerdict(gaps, 62 * HOUR)).toMatchObject({ stale: false });
    expect(freshnessVerdict(gaps, 4 * DAY)).toMatchObject({ stale: true });
  });

  it("is insufficient_history with fewer than 4 usable gaps (5 loads), ignoring non-positive and non-finite ones", () => {
    expect(freshnessVerdict([], 10)).toEqual({ kind: "insufficient_history", gaps: 0 });
    expect(freshnessVerdict([60, 60, 0, -5, Number.NaN, 60], 10)).toEqual({ kind: "insufficient_history", gaps: 3 });
    expect(freshnessVerdict([60, 60, 0, -5, Number.NaN, 60, 60], 10)).toMatchObject({ kind: "scored", stale: false });
  });

  it("takes the recurring long gaps from their own list when the recent gaps hold none", () => {
    // The last 200 loads of a 5-minute loader hold no night; the older long gaps (11 h nights over
    // two weeks) are passed beside them: a 10-hour silence is then on cadence, 3 days is not.
    const recent = new Array<number>(200).fill(300);
    expect(freshnessVerdict(recent, 10 * HOUR)).toMatchObject({ stale: true });
    const nights = new Array<number>(14).fill(11 * HOUR);
    const recurring = { gaps: [...nights, ...recent], spanSeconds: 14 * DAY };
    expect(freshnessVerdict(recent, 10 * HOUR, undefined, recurring)).toMatchObject({ stale: false });
    expect(freshnessVerdict(recent, 3 * DAY, undefined, recurring)).toMatchObject({ stale: true });
  });

  it("handles perfectly regular loads (MAD = 0) with a 1.5x tolerance", () => {
    const verdict = freshnessVerdict(new Array<number>(20).fill(600), 899);
    expect(verdict).toMatchObject({ kind: "scored", expected_gap: 600, stale: false });
    if (verdict.kind === "scored") expect(verdict.upper).toBeCloseTo(900, 6);
    expect(freshnessVerdict(new Array<number>(20).fill(600), 901)).toMatchObject({ stale: true, ratio: 901 / 600 });
  });
});
