import { describe, expect, it } from "vitest";
import { countLowerEdge, normalTail } from "../../src/anomaly/count-band.js";
import { scoreBucket } from "../../src/anomaly/score-bucket.js";

const count = (sensitivity: number) => ({ relative: true, poisson: true, sensitivity });

describe("normalTail", () => {
  it("gives the one-sided normal tail (R: pnorm(k, lower.tail = FALSE))", () => {
    expect(normalTail(3)).toBeCloseTo(1.3498980316e-3, 9);
    expect(normalTail(4)).toBeCloseTo(3.1671241833e-5, 11);
    expect(normalTail(0)).toBeCloseTo(0.5, 7);
    expect(normalTail(-1)).toBeCloseTo(0.8413447461, 7);
  });
});

describe("countLowerEdge", () => {
  it("puts the Poisson edge where ppois does", () => {
    // ppois(2, 16) = 1.63e-5 < 3.17e-5 <= ppois(3, 16) = 9.31e-5: counts 0..2 fall under the edge
    expect(countLowerEdge(16, 16, normalTail(4))).toBe(2.5);
    // ppois(4, 16) = 4.0e-4 < 1.35e-3 <= ppois(5, 16)
    expect(countLowerEdge(16, 16, normalTail(3))).toBe(4.5);
    // ppois(0, 4) = 0.018: no count is unusually low
    expect(countLowerEdge(4, 4, normalTail(3))).toBe(0);
  });

  it("puts the negative binomial edge where pnbinom does (size = mean² / (variance - mean))", () => {
    // pnbinom(2, size = 12.8, mu = 16) = 1.10e-3 < 1.35e-3 <= pnbinom(3, ...) = 3.42e-3
    expect(countLowerEdge(16, 36, normalTail(3))).toBe(2.5);
    // pnbinom(9, size = 50/3, mu = 50) = 2.26e-5 < 3.17e-5 <= pnbinom(10, ...) = 4.61e-5
    expect(countLowerEdge(50, 200, normalTail(4))).toBe(9.5);
  });

  it("is 0 for a mean of 0 or a tail of 0, and never below 0", () => {
    expect(countLowerEdge(0, 1, normalTail(3))).toBe(0);
    expect(countLowerEdge(5, 5, 0)).toBe(0);
    expect(countLowerEdge(0.5, 40, normalTail(3))).toBe(0);
  });
});

describe("scoreBucket: the lower edge of counts", () => {
  it("flags a zero the count's own distribution makes all but impossible, where the normal edge is below 0", () => {
    // sd = tail · sqrt(16) = 6 (prediction error on top of Poisson noise): 16 - 3·6 < 0
    const zero = scoreBucket(0, 16, { phi: 0, tail: 1.5 }, count(3));
    expect(zero).toMatchObject({ kind: "scored", lower: 2.5, side: -1 });
    expect(scoreBucket(3, 16, { phi: 0, tail: 1.5 }, count(3))).toMatchObject({ side: 0 });
  });

  it("keeps the normal edge above 60 expected counts", () => {
    const result = scoreBucket(100, 100, { phi: 0, tail: 1 }, count(3));
    // 100 - 3·10 + (9 - 1)/6
    if (result.kind === "scored") expect(result.lower).toBeCloseTo(100 - 30 + 8 / 6, 12);
    else throw new Error("unscored");
  });
});
