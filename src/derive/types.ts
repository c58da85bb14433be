export type ReliabilityStatus = "healthy" | "degraded" | "unreliable" | "unknown";

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
