// The anomaly answer the metric page draws, as DESIGN.md documents GET
// /v1/reliability/anomalies/:metric, and the feedback it posts. The pages reach the anomaly
// service through this port, so they depend on the documented shape only.

export interface AnomalyBucketView {
  /** ISO start of the bucket */
  start: string;
  value: number | null;
  /** null while the history is too short to score */
  expected: number | null;
  lower: number | null;
  upper: number | null;
  anomalous: boolean;
  /** a person's verdict on a flagged bucket; "expected" (or true) once marked */
  feedback: unknown;
}

export interface AnomalySeriesView {
  rule: string;
  /** the measure's alias; null for row counts and freshness */
  measure: string | null;
  grain: string;
  buckets: AnomalyBucketView[];
}

export interface AnomaliesView {
  metric: string;
  series: AnomalySeriesView[];
}

export interface AnomalyFeedbackInput {
  rule: string;
  measure: string | null;
  start: string;
  expected: true;
}

export interface AnomalyPort {
  /** throws AppError not_found for a metric outside the catalogue */
  series(metric: string): Promise<AnomaliesView>;
  /** marks a flagged bucket as expected (read-write only; the pages check the session first) */
  feedback(metric: string, input: AnomalyFeedbackInput): Promise<unknown>;
}

/** Whether a bucket's feedback marks it as expected, whatever form the service gives it in. */
export function markedExpected(feedback: unknown): boolean {
  if (feedback === true || feedback === "expected") return true;
  if (typeof feedback === "object" && feedback !== null) return (feedback as { expected?: unknown }).expected === true;
  return false;
}
