import { describe, expect, it } from "vitest";
import { PAIR_RATIO, PairRule } from "../../src/anomaly/pair-rule.js";
import { newBand } from "../../src/anomaly/score-bucket.js";

const at = (side: -1 | 0 | 1, lower = 1, upper = 2) => ({ ...newBand(), side, lower, upper });

describe("PairRule", () => {
  it("confirms a side when two buckets in a row leave the inner band on it, and hands back the first one's edges", () => {
    const rule = new PairRule();
    const edges = { lower: 0, upper: 0 };
    expect(rule.observe(10, at(-1, 5, 9), edges)).toBe(0);
    expect(rule.observe(11, at(-1, 6, 10), edges)).toBe(-1);
    expect(edges).toEqual({ lower: 5, upper: 9 });
    // A third bucket on the same side pairs with the second.
    expect(rule.observe(12, at(-1), edges)).toBe(-1);
    expect(edges).toEqual({ lower: 6, upper: 10 });
  });

  it("does not pair opposite sides, a gap in the index, a bucket inside, or across a reset", () => {
    const rule = new PairRule();
    const edges = { lower: 0, upper: 0 };
    rule.observe(0, at(1), edges);
    expect(rule.observe(1, at(-1), edges)).toBe(0);
    expect(rule.observe(3, at(-1), edges)).toBe(0);
    expect(rule.observe(4, at(0), edges)).toBe(0);
    expect(rule.observe(5, at(1), edges)).toBe(0);
    rule.reset();
    expect(rule.observe(6, at(1), edges)).toBe(0);
  });

  it("uses an inner band narrower than the band", () => {
    expect(PAIR_RATIO).toBeGreaterThan(0.5);
    expect(PAIR_RATIO).toBeLessThan(1);
  });
});
