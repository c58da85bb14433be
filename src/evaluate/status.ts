// The one status rule every probe shares, so the tolerance boundary behaves the same everywhere.
import type { Severity } from "../infer/types.js";
import type { TestStatus } from "./types.js";

// Shields the "exactly at tolerance" case from float noise (e.g. 3/300 vs 0.01).
const EPSILON = 1e-12;

/**
 * passing: no violation. LOW never fails, so any violation is a warning.
 * Otherwise a violating share at or under the tolerance is a warning, above it failing
 * (HIGH's default tolerance 0 makes any violation fail).
 */
export function statusFor(violations: number, total: number, severity: Severity, tolerance: number): TestStatus {
  if (violations <= 0) return "passing";
  if (severity === "LOW") return "warning";
  const fraction = total > 0 ? violations / total : 1;
  return fraction <= tolerance + EPSILON ? "warning" : "failing";
}
