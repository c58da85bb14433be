/** The one list of reliability statuses, best first: types, zod enums, Prometheus labels and the pages derive from it. */
export const RELIABILITY_STATUSES = ["healthy", "degraded", "unreliable", "unknown"] as const;
export type ReliabilityStatus = (typeof RELIABILITY_STATUSES)[number];
/** Worst first, as the pages list and count them. */
export const STATUSES_WORST_FIRST: readonly ReliabilityStatus[] = ["unreliable", "degraded", "healthy", "unknown"];

export interface TestCounts {
  total: number;
  passing: number;
  failing: number;
  warning: number;
}

export interface MetricStatus {
  metric_name: string;
  status: ReliabilityStatus;
  safe_to_use: boolean;
  tests: TestCounts;
}
