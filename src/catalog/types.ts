// Validated metric definitions: the output of the catalogue stage.

export const MEASURE_FUNCTIONS = ["Sum", "Count", "CountDistinct", "Avg", "Min", "Max"] as const;
export type MeasureFunction = (typeof MEASURE_FUNCTIONS)[number];

export type JoinType = "left" | "inner";
export type Relationship = "many_to_one" | "one_to_one";

export interface MeasureDefinition {
  alias: string;
  function: MeasureFunction;
  /** null only for Count (count of rows). */
  column: string | null;
  /** Declared non-negative: makes measure_non_negative a high-confidence rule. */
  non_negative?: boolean;
}

export interface DimensionDefinition {
  name: string;
  column: string;
  /** database.table the column is read from; undefined = the base table. */
  table?: string;
}

export interface JoinDefinition {
  table: string;
  type: JoinType;
  /** column on the base table */
  column: string;
  /** key column on the joined table */
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
  timestamp: string | null;
  /** expected max staleness in seconds, parsed from e.g. "6h" */
  freshness_seconds: number | null;
  filter: string | null;
  measures: MeasureDefinition[];
  dimensions: DimensionDefinition[];
  joins: JoinDefinition[];
  /** rule id -> tolerated violating fraction (0..1), overriding the severity default */
  tolerances: Record<string, number>;
  file: string;
}

export interface DerivedMetricDefinition {
  kind: "derived";
  name: string;
  description: string | null;
  datasource: string;
  /** names of the metrics it is computed from */
  inputs: string[];
  expression: string | null;
  file: string;
}

export type MetricDefinition = StructuredMetricDefinition | DerivedMetricDefinition;

export interface CatalogError {
  /** null when the whole file is unreadable */
  metric: string | null;
  file: string;
  message: string;
}

export interface Catalog {
  metrics: MetricDefinition[];
  errors: CatalogError[];
}

/** One catalogue file as read from disk: the pure parser takes these. */
export interface CatalogFile {
  file: string;
  content: string;
}
