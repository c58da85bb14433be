// Validated metric definitions: the output of the catalogue stage.
import type { MfMetricMeta } from "./metricflow/schema-meta.js";

export const MEASURE_FUNCTIONS = ["Sum", "Count", "CountDistinct", "Avg", "Min", "Max", "Median", "Percentile", "SumBoolean"] as const;
export type MeasureFunction = (typeof MEASURE_FUNCTIONS)[number];

export type JoinType = "left" | "inner";

// The anomalies block's values live beside its schema (zod only, shared with MetricFlow's meta).
export {
  ANOMALY_GRAINS,
  ANOMALY_SEASONALITIES,
  ANOMALY_SEVERITIES,
  GRAIN_SECONDS,
  MAX_ANOMALY_BUCKETS,
  type AnomalyDeclaration,
  type AnomalyGrain,
  type AnomalySeasonality,
  type AnomalySeverity,
  type Exclusion,
} from "./anomalies-schema.js";
import type { AnomalyDeclaration } from "./anomalies-schema.js";

export type Relationship = "many_to_one" | "one_to_one";

export interface MeasureDefinition {
  alias: string;
  function: MeasureFunction;
  /** null for Count (count of rows) and for a measure over an SQL expression. */
  column: string | null;
  /** SQL expression aggregated instead of a column (e.g. "price * quantity"); null for a plain column. */
  expr: string | null;
  /** Percentile only: 0..1 */
  percentile?: number;
  /** Declared non-negative: makes measure_non_negative a high-confidence rule. */
  non_negative?: boolean;
}

export interface DimensionDefinition {
  name: string;
  /** null when the dimension is an SQL expression */
  column: string | null;
  expr: string | null;
  /** database.table the column is read from; undefined = the base table. */
  table?: string;
  /** declared allowed values: makes dimension_accepted_values a rule */
  accepted_values?: string[];
}

export interface JoinDefinition {
  table: string;
  type: JoinType;
  /** table holding `column`: the base table, or an earlier join's table (a multi-hop path) */
  from: string;
  /** column on the `from` table, or an SQL expression over it (MetricFlow entity `expr`) */
  column: string;
  /** key column on the joined table, or an SQL expression over it */
  references: string;
  relationship: Relationship;
}

export interface StructuredMetricDefinition {
  kind: "structured";
  name: string;
  description: string | null;
  datasource: string;
  /** database.table */
  table: string;
  /** the base table's primary key: unique and never NULL. A column, or (MetricFlow `expr`) an SQL expression */
  primary_key: string | null;
  /** a column, or (MetricFlow `expr`) an SQL expression; see sql/value-expr.ts */
  timestamp: string | null;
  /** expected max staleness in seconds, parsed from e.g. "6h" */
  freshness_seconds: number | null;
  filter: string | null;
  measures: MeasureDefinition[];
  dimensions: DimensionDefinition[];
  joins: JoinDefinition[];
  /** rule id -> tolerated violating fraction (0..1), overriding the severity default */
  tolerances: Record<string, number>;
  /** tests declared for the tables it reads (dbt column tests) */
  declared_tests: DeclaredTest[];
  /** the `anomalies:` block as declared; absent: the configured defaults apply */
  anomalies?: AnomalyDeclaration;
  source: MetricSource;
  /** MetricFlow-only semantics kept for the reader of the IR (not evaluated here) */
  metricflow: Record<string, unknown> | null;
  file: string;
  /** MetricFlow `config.meta` as its schema reads it (free-form); absent when the metric has none */
  meta?: MfMetricMeta;
}

export interface DerivedMetricDefinition {
  kind: "derived";
  name: string;
  description: string | null;
  datasource: string;
  /** names of the metrics it is computed from */
  inputs: string[];
  expression: string | null;
  source: MetricSource;
  metricflow: Record<string, unknown> | null;
  file: string;
  /** MetricFlow `config.meta` as its schema reads it (free-form); absent when the metric has none */
  meta?: MfMetricMeta;
}

export interface MetricSource {
  format: "ours" | "metricflow";
  file: string;
}

export const DECLARED_TEST_KINDS = ["not_null", "unique", "relationships", "accepted_values"] as const;
export type DeclaredTestKind = (typeof DECLARED_TEST_KINDS)[number];

/** A dbt column test (`tests:` / `data_tests:`), read as declared. */
export interface DeclaredTest {
  kind: DeclaredTestKind;
  /** database.table of the model the test is declared on */
  table: string;
  column: string;
  /** dbt `severity: warn` tests warn and never fail */
  severity: "error" | "warn";
  /** relationships: the referenced database.table and column */
  to?: { table: string; column: string };
  /** accepted_values */
  values?: string[];
  file: string;
}

export type MetricDefinition = StructuredMetricDefinition | DerivedMetricDefinition;

export interface CatalogError {
  /** null when the whole file is unreadable */
  metric: string | null;
  file: string;
  message: string;
}

/** A file that is none of the known forms, or a construct that carries nothing for us: logged and served, never fatal. */
export interface CatalogWarning {
  file: string;
  message: string;
}

export interface Catalog {
  metrics: MetricDefinition[];
  errors: CatalogError[];
  warnings: CatalogWarning[];
}

/** One catalogue file as read from disk: the pure parser takes these. */
export interface CatalogFile {
  file: string;
  content: string;
}
