// Incidents: failing tests grouped by the table they read. A table's problems that overlap in
// time are one incident, opened by the scan that sees the first of them and resolved by the
// scan that sees the last one end (docs/incidents.md).
import type { ObservationOutcome } from "../evaluate/types.js";
import type { InferredTest, Severity } from "../infer/types.js";

/** What the incident does to a metric: a HIGH failure (or a check whose SQL throws) makes it unreliable. */
export type IncidentImpact = "unreliable" | "degraded";
/** direct: the metric has a failing test of the table; derived: built on such a metric. */
export type IncidentRelationship = "direct" | "derived";

/**
 * One (metric, test) judged failing by a scan: the test's own fields (`key`: the check, shared by
 * every metric that has it; `datasource`/`table`: the root), the outcome, and the root column when
 * the test reads exactly one column of the table.
 */
export type FailingTest = Pick<InferredTest, "key" | "metric" | "rule" | "name" | "check" | "severity" | "datasource" | "table"> & {
  outcome: ObservationOutcome;
  column: string | null;
};

/** A failing check of a root table in one scan (several metrics may share it). */
export interface ProblemTest {
  check_key: string;
  rule: string;
  /** the first metric's test name (names differ per metric only by the metric's labels) */
  name: string;
  check: string;
  column: string | null;
  /** the highest severity any metric gives it */
  severity: Severity;
}

export interface ProblemMetric {
  metric_name: string;
  impact: IncidentImpact;
  relationship: IncidentRelationship;
}

/** Everything failing on one root table in one scan. */
export interface TableProblem {
  datasource: string;
  table: string;
  tests: ProblemTest[];
  metrics: ProblemMetric[];
}

export interface IncidentTest extends ProblemTest {
  /** when the incident first saw it failing */
  since: Date;
  /** when it stopped failing (null: failing as of the newest scan) */
  until: Date | null;
}

export interface IncidentMetric extends ProblemMetric {
  since: Date;
  /** when the incident stopped affecting it (null: still affected) */
  until: Date | null;
}

export interface Incident {
  id: string;
  datasource: string;
  table: string;
  opened_at: Date;
  /** null while open */
  resolved_at: Date | null;
  opened_scan_id: string;
  resolved_scan_id: string | null;
  /** the last scan that changed it */
  updated_at: Date;
  /** every test that failed during the incident, in the order first seen */
  tests: IncidentTest[];
  /** every metric it affected; impact is the one it has now, or had last once no longer affected */
  metrics: IncidentMetric[];
}
