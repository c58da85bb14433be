import type { Confidence, Severity } from "../infer/types.js";
import type { SeriesVerdicts } from "./series-verdicts.js";

/** The one list of test statuses (a result's `status`). */
export const TEST_STATUSES = ["passing", "failing", "warning"] as const;
export type TestStatus = (typeof TEST_STATUSES)[number];

/** A test result, as in api-spec.md; the first fields are the API's seed fields. */
export interface TestResult {
  metric: string;
  rule: string;
  name: string;
  severity: Severity;
  confidence: Confidence;
  status: TestStatus;
  rows_affected: number;
  rows_total: number;
  message: string;
  sample_sql: string;
  check: string;
  /** how the check's answer was obtained (not an API seed field; the views leave it out) */
  outcome: ObservationOutcome;
}

/** Raw result of one planned query: its single row, keyed by output alias. */
export interface QueryOutcome {
  query_id: string;
  /** null when the query failed; `error` then says why */
  row: Record<string, number | string | null> | null;
  error: string | null;
}

/**
 * measured: the warehouse answered; not_evaluated: it could not run (a missing column, a query
 * ClickHouse rejected), a warning for every metric; not_applicable: cannot apply (NaN on an
 * integer column), passing; failed: the check's own SQL throws on today's data (a cast of a
 * NULL), isolated from the rest of its table's query: failing, and its metric unreliable.
 * Decisions read this field, never the message, which is for people.
 */
export type ObservationOutcome = "measured" | "not_evaluated" | "not_applicable" | "failed";

/**
 * What one distinct check (InferredTest.key) found, before any metric's severity or tolerance
 * is applied. Shared by every metric that has the check; this is what the store keeps per scan.
 */
export interface CheckObservation {
  outcome: ObservationOutcome;
  rows_affected: number;
  rows_total: number;
  message: string;
  /** set when the planner adapted the check's sample query to the column types (join keys) */
  sample_sql?: string;
  /**
   * freshness only: the newest timestamp read (unix seconds), kept beside the result so that a
   * scan of the unchanged table judges its age again without reading it (scan/unchanged-checks.ts)
   */
  newest?: number;
}

/** A bucket an anomaly check flagged in a scan, with the band it fell outside. */
export interface FlaggedBucket {
  /** the check (InferredTest.key) whose series it is */
  check_key: string;
  rule: string;
  /** the series' aggregate: count() or e.g. Sum(amount) */
  measure: string;
  start: Date;
  value: number;
  expected: number | null;
  lower: number | null;
  upper: number | null;
}

/** One anomaly check as judged: its observation, the buckets it flags, and its series' verdicts. */
export interface AnomalyJudgement {
  observation: CheckObservation;
  flagged: FlaggedBucket[];
  /** the check's series was scored: buckets it flagged before and not now stop being active */
  judged: boolean;
  /** the series' verdicts bucket by bucket (what the chart draws); absent when it was not scored */
  verdicts?: SeriesVerdicts | null;
}
