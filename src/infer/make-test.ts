// Fills in the fields every inferred test shares: key, tolerance, sample query.
import type { MetricIR } from "../compile/ir.js";
import type { RuleId } from "../catalog/rule-ids.js";
import { sampleSql } from "./sample-sql.js";
import type { ColumnRef, Confidence, InferredTest, Probe, Severity } from "./types.js";

/** DESIGN.md: 0 for HIGH, 1% for MEDIUM, and LOW never fails. */
export const DEFAULT_TOLERANCE: Record<Severity, number> = { HIGH: 0, MEDIUM: 0.01, LOW: 1 };

export interface TestSpec {
  rule: RuleId;
  name: string;
  check: string;
  severity: Severity;
  confidence: Confidence;
  /** database.table the test scans */
  table: string;
  filter: string | null;
  columns: ColumnRef[];
  probe: Probe;
}

/** Structured metrics only: rules return [] when the IR has no base table. */
export function makeTest(ir: MetricIR, spec: TestSpec): InferredTest {
  return {
    // Metric name and test name stay out of the key: equal checks on the same rows run once.
    key: `${ir.datasource}|${spec.table}|${spec.filter ?? ""}|${spec.rule}|${spec.check}`,
    metric: ir.name,
    rule: spec.rule,
    name: spec.name,
    check: spec.check,
    severity: spec.severity,
    confidence: spec.confidence,
    tolerance: ir.tolerances[spec.rule] ?? DEFAULT_TOLERANCE[spec.severity],
    datasource: ir.datasource,
    table: spec.table,
    filter: spec.filter,
    columns: spec.columns,
    filter_columns: filterColumnRefs(ir, spec),
    probe: spec.probe,
    sample_sql: sampleSql(spec.table, spec.filter, spec.probe),
  };
}

/**
 * A test that runs under the metric's filter also reads the filter's columns, so a missing one
 * makes it "not evaluated: column missing" instead of a raw ClickHouse error.
 */
function filterColumnRefs(ir: MetricIR, spec: TestSpec): ColumnRef[] {
  if (spec.filter === null || spec.filter !== ir.filter || spec.table !== ir.table) return [];
  return ir.filter_columns.map((column) => ({ table: spec.table, column }));
}

/** Measures that aggregate a column's values, dropping NULLs. */
export const NULL_DROPPING_FUNCTIONS = new Set(["Sum", "Avg", "Min", "Max", "Median", "Percentile", "SumBoolean"]);
/** Measures where a NaN poisons the result and the sign matters. */
export const VALUE_FUNCTIONS = new Set(["Sum", "Avg", "Min", "Max", "Median", "Percentile"]);
