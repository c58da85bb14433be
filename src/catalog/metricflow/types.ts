// MetricFlow's semantic models as this reader keeps them: names resolved to ClickHouse
// tables, `expr` split into a plain column or an SQL expression.

export type EntityType = "primary" | "unique" | "foreign" | "natural";

/** A column, or an SQL expression (e.g. "1", "price * qty"): `column` is set only for a plain name. */
export interface ValueRef {
  column: string | null;
  expr: string | null;
}

export interface MfEntity extends ValueRef {
  name: string;
  type: EntityType;
}

export interface MfDimension extends ValueRef {
  name: string;
  type: "categorical" | "time";
  granularity: string | null;
}

export interface MfMeasure extends ValueRef {
  name: string;
  agg: string;
  description: string | null;
  agg_params: Record<string, unknown> | null;
  agg_time_dimension: string | null;
  non_additive_dimension: unknown;
  create_metric: boolean;
}

export interface SemanticModel {
  name: string;
  file: string;
  description: string | null;
  /** database.table */
  table: string;
  primary_entity: string | null;
  agg_time_dimension: string | null;
  entities: MfEntity[];
  dimensions: MfDimension[];
  measures: MfMeasure[];
}

/** One step of a join path: from `from.model` (column `from_column`) to `to.model` (key `to_column`). */
export interface Hop {
  from: SemanticModel;
  to: SemanticModel;
  entity: string;
  from_column: string;
  to_column: string;
  relationship: "many_to_one" | "one_to_one";
}
