// MetricFlow's semantic models as this reader keeps them: the elements as their schemas
// parse them (types inferred from the zod schemas), names resolved to ClickHouse tables.
import type { MfSemanticModel } from "./schema-model.js";

export type { MfDimension, MfEntity, MfEntityType, MfMeasure } from "./schema-model.js";
export type { MfMeasureInput, MfMetric, MfMetricInput, MfMetricType } from "./schema-metric.js";
export type { MfMetricMeta } from "./schema-meta.js";
export type { MfAgg } from "./aggregations.js";
export type { ValueRef } from "./value-ref.js";

export type SemanticModel = MfSemanticModel & {
  file: string;
  /** database.table */
  table: string;
};

/** One step of a join path: from `from.model` (column `from_column`) to `to.model` (key `to_column`). */
export interface Hop {
  from: SemanticModel;
  to: SemanticModel;
  entity: string;
  from_column: string;
  to_column: string;
  relationship: "many_to_one" | "one_to_one";
}
