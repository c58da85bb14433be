// The compiled intermediate representation. The first fields of each type are the
// API's seed fields (api-spec.md) and must never be renamed or dropped.
import type { JoinType, MeasureFunction, Relationship } from "../catalog/types.js";

export interface MeasureIR {
  alias: string;
  function: MeasureFunction;
  column: string | null;
}

export interface DimensionIR {
  name: string;
  /** table the column is read from, null for the base table */
  source_table: string | null;
  column: string;
}

export interface JoinIR {
  table: string;
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
  filter: string | null;
  /** columns the filter reads (lexed; see catalog/filter-columns.ts) */
  filter_columns: string[];
  timestamp: string | null;
  freshness_seconds: number | null;
  /** derived metrics: the metrics they are built from; [] otherwise */
  inputs: string[];
  tolerances: Record<string, number>;
  file: string;
}
