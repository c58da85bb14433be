// A band value is kept as float32 (src/evaluate/series-verdicts.ts) and answered with the fewest
// digits that read back to the same float32: what a user sees is the number the scan computed,
// to seven significant digits, not the float32's binary expansion.
import { describe, expect, it } from "vitest";
import { bandNumber } from "../../src/services/anomaly-service.js";

describe("bandNumber", () => {
  it("writes a held band value with the fewest digits that read back to it", () => {
    expect(bandNumber(Math.fround(1180.3))).toBe(1180.3);
    expect(bandNumber(Math.fround(0.1))).toBe(0.1);
    expect(bandNumber(Math.fround(1 / 3))).toBe(0.33333334);
    expect(bandNumber(Math.fround(-2.5e-7))).toBe(-2.5e-7);
    expect(bandNumber(Math.fround(123456789))).toBe(123456790);
    expect(bandNumber(0)).toBe(0);
  });

  it("reads back to the very float32 it was given", () => {
    for (let i = 0; i < 2000; i++) {
      const held = Math.fround((Math.sin(i) * 10 ** ((i % 17) - 8)) / 3);
      expect(Math.fround(bandNumber(held)!)).toBe(held);
    }
  });

  it("answers null where there is no band (missing, not scored)", () => {
    expect(bandNumber(NaN)).toBeNull();
    expect(bandNumber(undefined)).toBeNull();
    expect(bandNumber(Infinity)).toBeNull();
  });
});
