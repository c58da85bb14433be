import { describe, expect, it } from "vitest";
import { formatDuration, formatPercent } from "../../src/evaluate/format.js";
import { statusFor } from "../../src/evaluate/status.js";

describe("formatDuration", () => {
  it("shows the two largest units", () => {
    expect(formatDuration(266_400)).toBe("3d 2h");
    expect(formatDuration(21_600)).toBe("6h");
    expect(formatDuration(3 * 86_400)).toBe("3d");
    expect(formatDuration(45)).toBe("45s");
    expect(formatDuration(0)).toBe("0s");
  });
});

describe("formatPercent", () => {
  it("uses two decimals and never rounds a violation to zero", () => {
    expect(formatPercent(12, 10_000)).toBe("0.12");
    expect(formatPercent(0, 0)).toBe("0.00");
    expect(formatPercent(1, 1_000_000)).toBe("<0.01");
  });
});

describe("statusFor", () => {
  it("applies severity and tolerance", () => {
    expect(statusFor(0, 10, "HIGH", 0)).toBe("passing");
    expect(statusFor(1, 10, "HIGH", 0)).toBe("failing");
    expect(statusFor(1, 100, "MEDIUM", 0.01)).toBe("warning");
    expect(statusFor(2, 100, "MEDIUM", 0.01)).toBe("failing");
    expect(statusFor(100, 100, "LOW", 0)).toBe("warning");
    expect(statusFor(1, 0, "MEDIUM", 0.5)).toBe("failing");
  });
});
