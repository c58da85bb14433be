import type { Confidence, Severity } from "../infer/types.js";

export type TestStatus = "passing" | "failing" | "warning";

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
}

/** Raw result of one planned query: its single row, keyed by output alias. */
export interface QueryOutcome {
  query_id: string;
  /** null when the query failed; `error` then says why */
  row: Record<string, number | string | null> | null;
  error: string | null;
}
