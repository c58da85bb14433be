// zod schema of one MetricFlow semantic model (dbt's `semantic_models:` entries and
// MetricFlow's `semantic_model:` documents). Each element resolves its value (`expr` or the
// column named like it) as it is parsed; where the rows live (`model` / `node_relation`,
// `mfRelation`) is resolved by the reader, which knows METRICFLOW_DATABASE.
import { z } from "zod";
import { MF_AGGREGATIONS } from "./aggregations.js";
import { asWritten } from "./schema-common.js";
import { valueRef } from "./value-ref.js";

export const ENTITY_TYPES = ["primary", "unique", "foreign", "natural"] as const;
const DIMENSION_TYPES = ["categorical", "time"] as const;

/** SQL, or a constant YAML reads as a number or a boolean (`expr: 1`). */
const expr = z.union([z.string(), z.number(), z.boolean()], { error: "expected a string" }).nullish();
const element = { error: "expected a mapping with a name" };
const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((items) => items ?? []);

export const mfEntity = z
  .looseObject({ name: z.string(), type: z.enum(ENTITY_TYPES), expr }, element)
  .transform(({ name, type, expr }, ctx) => {
    const ref = valueRef(name, expr);
    if (!("problem" in ref)) return { name, type, ...ref };
    ctx.addIssue({ code: "custom", message: ref.problem });
    return z.NEVER;
  });

export const mfDimension = z
  .looseObject(
    {
      name: z.string(),
      type: z.enum(DIMENSION_TYPES, { error: "expected categorical|time" }),
      expr,
      type_params: z.looseObject({ time_granularity: z.string().nullish() }).nullish(),
    },
    element,
  )
  .transform(({ name, type, expr, type_params }, ctx) => {
    const ref = valueRef(name, expr);
    if (!("problem" in ref)) return { name, type, granularity: type_params?.time_granularity ?? null, ...ref };
    ctx.addIssue({ code: "custom", message: ref.problem });
    return z.NEVER;
  });

export const mfMeasure = z
  .looseObject(
    {
      name: z.string(),
      agg: z.enum(MF_AGGREGATIONS),
      expr,
      description: z.string().nullish(),
      agg_params: asWritten(z.looseObject({ percentile: z.number().nullish() }), "expected a mapping").nullish(),
      agg_time_dimension: z.string().nullish(),
      non_additive_dimension: z.record(z.string(), z.unknown()).nullish(),
      create_metric: z.boolean().nullish(),
    },
    element,
  )
  .transform((m, ctx) => {
    const ref = valueRef(m.name, m.expr);
    if ("problem" in ref) ctx.addIssue({ code: "custom", message: ref.problem });
    const noPercentile = m.agg === "percentile" && typeof m.agg_params?.percentile !== "number";
    if (noPercentile) ctx.addIssue({ code: "custom", path: ["agg_params", "percentile"], message: "required for agg percentile" });
    if ("problem" in ref || noPercentile) return z.NEVER;
    return {
      name: m.name,
      agg: m.agg,
      description: m.description ?? null,
      agg_params: m.agg_params ?? null,
      agg_time_dimension: m.agg_time_dimension ?? null,
      non_additive_dimension: m.non_additive_dimension ?? null,
      create_metric: m.create_metric === true,
      ...ref,
    };
  });

/** Where the rows live: `model: ref('x')` or `node_relation` (read by relation.ts). */
const relationFields = {
  model: z.string().nullish(),
  node_relation: z.looseObject({ alias: z.string().nullish(), schema_name: z.string().nullish() }).nullish(),
};
export const mfRelation = z.looseObject(relationFields);

export const mfSemanticModel = z
  .looseObject({
    name: z.string(),
    description: z.string().nullish(),
    ...relationFields,
    primary_entity: z.string().nullish(),
    defaults: z.looseObject({ agg_time_dimension: z.string().nullish() }).nullish(),
    entities: list(mfEntity),
    dimensions: list(mfDimension),
    measures: list(mfMeasure),
  })
  .transform((raw) => ({
    name: raw.name,
    description: raw.description ?? null,
    // MetricFlow's primary_entity, else the model's primary key entity
    primary_entity: raw.primary_entity ?? raw.entities.find((e) => e.type === "primary")?.name ?? null,
    agg_time_dimension: raw.defaults?.agg_time_dimension ?? null,
    entities: raw.entities,
    dimensions: raw.dimensions,
    measures: raw.measures,
  }));

export type MfEntity = z.output<typeof mfEntity>;
export type MfEntityType = MfEntity["type"];
export type MfDimension = z.output<typeof mfDimension>;
export type MfMeasure = z.output<typeof mfMeasure>;
export type MfSemanticModel = z.output<typeof mfSemanticModel>;
export type MfRelation = z.output<typeof mfRelation>;
