import { describe, expect, it } from "vitest";
import { CORRELATED, ErrorVolatility } from "../../src/anomaly/error-volatility.js";
import { PredictionErrors } from "../../src/anomaly/prediction-errors.js";
import { noise } from "./series-fixtures.js";

const additive = { relative: false, poisson: false, sensitivity: 3 };
const unitScale = { phi: 1, tail: 1 };

/** 336 one-step errors (expected 0) of an AR(1) process with correlation rho and unit variance. */
function errorsOf(rho: number, seed: number): PredictionErrors {
  const z = noise(seed);
  const errors = new PredictionErrors(336, 336, additive);
  let e = z();
  for (let i = 0; i < 336; i++) {
    errors.record(i, e, 0);
    e = rho * e + Math.sqrt(1 - rho * rho) * z();
  }
  return errors;
}

describe("PredictionErrors.lagOneCorrelation", () => {
  it("reads about 0 off independent errors and about rho off AR(1) ones", () => {
    // 336 independent errors: sampling sd about 0.055, so well under CORRELATED.
    for (const seed of [1, 2, 3]) expect(Math.abs(errorsOf(0, seed).lagOneCorrelation(0, 336, unitScale))).toBeLessThan(0.15);
    for (const seed of [1, 2, 3]) expect(errorsOf(0.6, seed).lagOneCorrelation(0, 336, unitScale)).toBeCloseTo(0.6, 1);
  });

  it("skips buckets without an error and needs 20 neighbouring pairs", () => {
    const errors = errorsOf(0.6, 4);
    expect(errors.lagOneCorrelation(0, 20, unitScale)).toBeNaN();
    for (let i = 0; i < 336; i += 2) errors.error[i] = Number.NaN; // no two neighbours left
    expect(errors.lagOneCorrelation(0, 336, unitScale)).toBeNaN();
  });
});

describe("ErrorVolatility: errors that come in runs", () => {
  const window = { mean: 1, count: 336 };
  const widthAt = (grain: "hour" | "day", rho: number) => {
    const volatility = new ErrorVolatility(grain, 3);
    volatility.refresh(window, rho);
    return { tail: volatility.widen(unitScale).tail, correlated: volatility.correlated };
  };

  it("widens an hourly band by 1 + 2 (rho - 0.2) above 0.2, and not below", () => {
    const base = widthAt("hour", 0).tail;
    expect(widthAt("hour", CORRELATED).tail).toBeCloseTo(base, 12);
    expect(widthAt("hour", 0.2).correlated).toBe(false);
    expect(widthAt("hour", 0.34).correlated).toBe(true);
    expect(widthAt("hour", 0.34).tail / base).toBeCloseTo(1.28, 12);
    expect(widthAt("hour", Number.NaN).tail).toBeCloseTo(base, 12);
  });

  it("never at day grain, where 84 errors cannot tell a correlation of 0.3 from chance", () => {
    expect(widthAt("day", 0.5).correlated).toBe(false);
    expect(widthAt("day", 0.5).tail).toBeCloseTo(widthAt("day", 0).tail, 12);
  });
});
