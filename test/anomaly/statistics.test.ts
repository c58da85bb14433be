// Reference values: numpy.median / numpy.quantile (method="linear") and R's median(), mad(), quantile(type = 7).
import { describe, expect, it } from "vitest";
import { MAD_TO_SD, medianAbsoluteDeviation, robustSd } from "../../src/anomaly/mad.js";
import { median } from "../../src/anomaly/median.js";
import { resistantLine } from "../../src/anomaly/resistant-line.js";
import { medianInPlace, quantileInPlace, selectInPlace } from "../../src/anomaly/select.js";

describe("median", () => {
  it("matches numpy.median on odd and even lengths", () => {
    expect(median([3, 1, 4, 1, 5])).toBe(3); // np.median([3,1,4,1,5]) = 3.0
    expect(median([1, 2, 3, 4])).toBe(2.5); // np.median([1,2,3,4]) = 2.5
    expect(median([-5.5, 2, 1e9, 0.25, 7, 7])).toBe(4.5); // np.median(...) = 4.5
  });

  it("is NaN when empty, the value itself for one value, and skips non-finite entries", () => {
    expect(median([])).toBeNaN();
    expect(median([42])).toBe(42);
    expect(median([5, 5, 5, 5])).toBe(5);
    expect(median([0, 0, 0])).toBe(0);
    expect(median([Number.NaN, 1, Infinity, 3])).toBe(2);
  });
});

describe("medianAbsoluteDeviation and robustSd", () => {
  it("match R's mad()", () => {
    // R: mad(c(1, 1, 2, 2, 4, 6, 9), constant = 1) = 1; mad(c(1, 1, 2, 2, 4, 6, 9)) = 1.4826
    expect(medianAbsoluteDeviation([1, 1, 2, 2, 4, 6, 9])).toBe(1);
    expect(robustSd([1, 1, 2, 2, 4, 6, 9])).toBeCloseTo(1.482602, 6);
    // R: mad(c(2.5, -1, 10, 3, 3.5, 100)) = 1.4826 * 2.5 = 3.706506 (median 3.25, median of |x - 3.25| = 2.5)
    expect(robustSd([2.5, -1, 10, 3, 3.5, 100])).toBeCloseTo(3.706506, 6);
    expect(MAD_TO_SD).toBeCloseTo(1 / 0.6744897501960817, 12); // 1 / qnorm(0.75)
  });

  it("falls back to 1.2533 x the mean absolute deviation when the MAD is 0 (more than half the values equal)", () => {
    // R: mad(c(5, 5, 5, 5, 9)) = 0; mean(abs(x - 5)) = 0.8; sqrt(pi / 2) * 0.8 = 1.002651
    expect(medianAbsoluteDeviation([5, 5, 5, 5, 9])).toBe(0);
    expect(robustSd([5, 5, 5, 5, 9])).toBeCloseTo(1.002651, 6);
  });

  it("is 0 for all-equal or all-zero input, 0 for one value, NaN when empty", () => {
    expect(robustSd([7, 7, 7])).toBe(0);
    expect(robustSd([0, 0, 0, 0])).toBe(0);
    expect(robustSd([3])).toBe(0);
    expect(robustSd([])).toBeNaN();
    expect(medianAbsoluteDeviation([])).toBeNaN();
  });
});

describe("in-place selection", () => {
  it("selects order statistics inside the prefix only", () => {
    const buffer = Float64Array.from([9, 1, 8, 2, 7, -100, -100]);
    expect(selectInPlace(buffer, 5, 0)).toBe(1);
    expect(selectInPlace(buffer, 5, 4)).toBe(9);
    expect(medianInPlace(Float64Array.from([4, 1, 3, 2, -50]), 4)).toBe(2.5);
    expect(selectInPlace(Float64Array.from([3, -1]), 1, 0)).toBe(3); // length 1 never reads past the prefix
    expect(medianInPlace(new Float64Array(4), 0)).toBeNaN();
  });

  it("quantileInPlace is type 7 (R's default, numpy's linear)", () => {
    // R: quantile(1:10, 0.9) = 9.1; quantile(c(3, 1, 4, 1, 5, 9, 2, 6), 0.25) = 1.75
    expect(quantileInPlace(Float64Array.from([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]), 10, 0.9)).toBeCloseTo(9.1, 12);
    expect(quantileInPlace(Float64Array.from([3, 1, 4, 1, 5, 9, 2, 6]), 8, 0.25)).toBeCloseTo(1.75, 12);
    expect(quantileInPlace(Float64Array.from([5]), 1, 0.9)).toBe(5);
    expect(quantileInPlace(new Float64Array(0), 0, 0.5)).toBeNaN();
  });
});

describe("resistantLine", () => {
  it("recovers a line that a third of outliers would tilt for least squares", () => {
    const xs = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    const ys = xs.map((x) => 2 * x);
    ys[8] = 100;
    const line = resistantLine(xs, ys, 9, new Float64Array(9));
    expect(line.slope).toBe(2);
    expect(line.intercept).toBe(0);
  });

  it("is flat through the median below three points and NaN when empty", () => {
    expect(resistantLine([1, 2], [5, 9], 2, new Float64Array(2))).toEqual({ slope: 0, intercept: 7 });
    expect(resistantLine([1, 1, 1], [1, 2, 3], 3, new Float64Array(3))).toEqual({ slope: 0, intercept: 2 });
    expect(resistantLine([], [], 0, new Float64Array(1)).slope).toBeNaN();
  });
});
