// The compiled intermediate representation. The first fields of each type are the
// API's seed fields (api-spec.md) and must never be renamed or dropped.
import type { DeclaredTest, JoinType, MeasureFunction, MetricSource, Relationship } from "../catalog/types.js";
import type { AnomalySettingsIR } from "./anomaly-settings.js";

export interface MeasureIR {
  alias: string;
  function: MeasureFunction;
  column: string | null;
  /** SQL expression aggregated instead of a column; null for a plain column or a row count */
  expr: string | null;
  /** columns the expression reads (lexed) */
  expr_columns: string[];
  /** Percentile only */
  percentile?: number;
}

export interface DimensionIR {
  name: string;
  /** table the column is read from, null for the base table */
  source_table: string | null;
  /** null for a dimension that is an SQL expression */
  column: string | null;
  expr: string | null;
  expr_columns: string[];
  accepted_values?: string[];
}

export interface JoinIR {
  table: string;
  /** table holding left_column: the base table, or an earlier join's table (multi-hop) */
  from_table: string;
  type: JoinType;
  left_column: string;
  right_column: string;
  relationship: Relationship;
}

export interface MetricIR {
  name: string;
  kind: "structured" | "derived";
  datasource: string;
  measures: MeasureIR[];
  dimensions: DimensionIR[];
  joins: JoinIR[];
  // Added fields (allowed by the contract):
  description: string | null;
  /** base table (database.table); null for derived metrics */
  table: string | null;
  /** the base table's primary key: a column, or an SQL expression (sql/value-expr.ts) */
  primary_key: string | null;
  filter: string | null;
  /** columns the filter reads (lexed; see catalog/filter-columns.ts) */
  filter_columns: string[];
  /** a column, or an SQL expression read as a DateTime (sql/value-expr.ts) */
  timestamp: string | null;
  freshness_seconds: number | null;
  /** derived metrics: the metrics they are built from; [] otherwise */
  inputs: string[];
  tolerances: Record<string, number>;
  /** dbt column tests declared on the tables it reads */
  declared_tests: DeclaredTest[];
  /** anomaly rules' settings, resolved against the configured defaults; null for derived metrics */
  anomalies: AnomalySettingsIR | null;
  /** where the definition came from */
  source: MetricSource;
  /** MetricFlow semantics kept as declared (filters per input, windows, fill_nulls_with...) */
  metricflow: Record<string, unknown> | null;
  file: string;
}
