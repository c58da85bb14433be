// A test inferred from a metric's IR. Pure data: listing tests never touches the warehouse.

export type Severity = "HIGH" | "MEDIUM" | "LOW";
export type Confidence = "high" | "medium" | "low";

export interface ColumnRef {
  /** database.table */
  table: string;
  column: string;
}

/**
 * What the warehouse must measure for a test. Every probe is answered by the one
 * aggregate query of its (datasource, table), except `schema`,
 * which is answered from system.columns.
 */
export type Probe =
  /** violating rows = countIf(violation) over the group's rows */
  | { type: "rows_where"; violation: string }
  /** violation when the group has zero rows */
  | { type: "not_empty" }
  /** violating rows = count() - uniqExact(key) */
  | { type: "duplicate_keys"; key: string }
  /** all `columns` of the test must exist */
  | { type: "schema" }
  /** newest value of `column` must be at most maxSeconds old */
  | { type: "staleness"; column: string; maxSeconds: number };

export interface InferredTest {
  /** identity of the check itself, equal across metrics that share it: datasource|table|filter|rule|check */
  key: string;
  metric: string;
  rule: string;
  name: string;
  /** textual expression of the check, e.g. "amount IS NOT NULL" */
  check: string;
  severity: Severity;
  confidence: Confidence;
  /** tolerated violating fraction of rows_total (0..1); LOW never fails */
  tolerance: number;
  datasource: string;
  /** database.table the test scans */
  table: string;
  filter: string | null;
  /** columns that must exist for the probe to be evaluated */
  columns: ColumnRef[];
  /** columns the metric's filter reads, when the test runs under it: they must exist too */
  filter_columns: ColumnRef[];
  probe: Probe;
  /** ClickHouse query returning up to 10 violating rows */
  sample_sql: string;
}
