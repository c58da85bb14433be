import { describe, expect, it } from "vitest";
import { errorScale } from "../../src/anomaly/prediction-scale.js";
import { scoreBucket } from "../../src/anomaly/score-bucket.js";

const value = { relative: true, poisson: false, sensitivity: 4 };
const count = { relative: true, poisson: true, sensitivity: 4 };

describe("scoreBucket", () => {
  it("draws expected ± k·sd in the original units, with deviations ±k at the edges", () => {
    const result = scoreBucket(150, 100, { phi: 0.01, tail: 1 }, value);
    expect(result).toMatchObject({ kind: "scored", lower: 60, upper: 140, side: 1 });
    if (result.kind === "scored") expect(result.deviations).toBeCloseTo(5, 12);
    const inside = scoreBucket(70, 100, { phi: 0.01, tail: 1 }, value);
    expect(inside).toMatchObject({ side: 0, deviations: -3 });
  });

  it("puts the Poisson edges where the exact Poisson tail does (R: ppois)", () => {
    // mean 1: P(X >= 8) = 1.0e-5 and P(X >= 7) = 8.3e-5, against a one-sided normal 4-sigma tail of 3.2e-5
    const sparse = scoreBucket(7, 1, { phi: 0, tail: 1 }, count);
    expect(sparse).toMatchObject({ upper: 7.5, lower: 0, side: 0 });
    expect(scoreBucket(8, 1, { phi: 0, tail: 1 }, count)).toMatchObject({ side: 1 });
    // mean 16: ppois(2, 16) = 1.6e-5 (flag), ppois(3, 16) = 9.3e-5 (no flag)
    expect(scoreBucket(2, 16, { phi: 0, tail: 1 }, count)).toMatchObject({ side: -1 });
    expect(scoreBucket(3, 16, { phi: 0, tail: 1 }, count)).toMatchObject({ side: 0 });
    // mean 4: a zero is not unusual (ppois(0, 4) = 0.018)
    expect(scoreBucket(0, 4, { phi: 0, tail: 1 }, count)).toMatchObject({ lower: 0, side: 0 });
  });

  it("gives an all-zero count history a band a few rows wide, never a zero-width one", () => {
    const result = scoreBucket(0, 0, { phi: 0, tail: 1 }, count);
    expect(result).toMatchObject({ lower: 0, upper: 6.5, side: 0 });
    expect(scoreBucket(7, 0, { phi: 0, tail: 1 }, count)).toMatchObject({ side: 1 });
  });

  it("flags any change of a value that never moved (MAD = 0), but not float rounding", () => {
    expect(scoreBucket(42.5, 42, { phi: 0, tail: 1 }, value)).toMatchObject({ side: 1 });
    expect(scoreBucket(42 + 1e-12, 42, { phi: 0, tail: 1 }, value)).toMatchObject({ side: 0 });
  });

  it("is unscored without an expected value or a scale", () => {
    expect(scoreBucket(1, Number.NaN, { phi: 1, tail: 1 }, value)).toEqual({ kind: "unscored" });
    expect(scoreBucket(1, 1, { phi: Number.NaN, tail: 1 }, value)).toEqual({ kind: "unscored" });
  });
});

describe("errorScale", () => {
  const normalQuantiles = (n: number, sd: number) => Array.from({ length: n }, (_, i) => sd * inverseNormal((i + 0.5) / n));
  const sample = (errors: number[], g: number, poisson: number) => ({
    error: Float64Array.from(errors),
    g2: new Float64Array(errors.length).fill(g * g),
    poisson: new Float64Array(errors.length).fill(poisson),
    length: errors.length,
  });

  it("recovers the relative sd of normal errors (phi = (sd / g)²) with no tail widening", () => {
    const scale = errorScale(sample(normalQuantiles(401, 5), 100, 0), new Float64Array(401));
    expect(Math.sqrt(scale.phi)).toBeCloseTo(0.05, 3);
    expect(scale.tail).toBeCloseTo(1, 2);
  });

  it("attributes Poisson-sized errors to the Poisson part (phi = 0) and overdispersion to phi", () => {
    const poissonOnly = errorScale(sample(normalQuantiles(401, Math.sqrt(50)), 50, 50), new Float64Array(401));
    expect(poissonOnly.phi).toBeLessThan(1e-4);
    // Var = phi·g² + p with g = 50, p = 50, phi = 0.01: sd = sqrt(25 + 50)
    const overdispersed = errorScale(sample(normalQuantiles(401, Math.sqrt(75)), 50, 50), new Float64Array(401));
    expect(overdispersed.phi).toBeCloseTo(0.01, 3);
  });

  it("widens the band for heavy tails, falls back to the mean absolute error when most errors are 0, and is NaN when empty", () => {
    const heavy = normalQuantiles(401, 1).map((e) => e * (Math.abs(e) > 1.2 ? 3 : 1));
    expect(errorScale(sample(heavy, 1, 0), new Float64Array(401)).tail).toBeGreaterThan(1.5);
    const mostlyZero = errorScale(sample([0, 0, 0, 0, 4], 1, 0), new Float64Array(5));
    expect(Math.sqrt(mostlyZero.phi)).toBeCloseTo(1.2533 * 0.8, 3);
    expect(errorScale(sample([], 1, 0), new Float64Array(1)).phi).toBeNaN();
  });
});

/** Acklam's rational approximation of the standard normal quantile (|error| < 1.2e-9). */
function inverseNormal(p: number): number {
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const q = p < 0.5 ? Math.sqrt(-2 * Math.log(p)) : Math.sqrt(-2 * Math.log(1 - p));
  if (p > 0.02425 && p < 0.97575) {
    const r = (p - 0.5) ** 2;
    return (
      ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * (p - 0.5)) /
      (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
    );
  }
  const x =
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  return p < 0.5 ? x : -x;
}
