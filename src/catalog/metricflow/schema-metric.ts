// zod schema of one MetricFlow metric: the fields every metric has, and `type_params` by
// metric type (one schema per type, chosen by `type`; any letter case, as before). Problems
// a schema cannot see (unknown measures, filters that do not render) are the reader's.
import { z } from "zod";
import { METRIC_NAME } from "../metric-schema.js";
import { asWritten, filterField, nameShorthand } from "./schema-common.js";
import { mfMetricMeta } from "./schema-meta.js";

/** In the order the "expected one of" message lists them. */
export const MF_METRIC_TYPES = ["simple", "ratio", "derived", "cumulative", "conversion"] as const;
export type MfMetricType = (typeof MF_METRIC_TYPES)[number];

/** `measure: x` or `measure: { name: x, filter: ..., ... }` of a simple or cumulative metric. */
const measureInput = z.preprocess(
  nameShorthand,
  z.looseObject(
    {
      name: z.string({ error: "expected a measure name" }),
      filter: filterField,
      alias: z.string().nullish(),
      fill_nulls_with: z.number().nullish(),
      join_to_timespine: z.boolean().nullish(),
    },
    { error: "expected a measure name" },
  ),
);

/** An input metric of a ratio or derived metric; kept as written (offset_window, alias...). */
const metricInput = z.preprocess(
  nameShorthand,
  asWritten(z.looseObject({ name: z.string({ error: "expected a metric name" }), filter: filterField }), "expected a metric name"),
);

/** A conversion metric's measure, kept as written: a name, or a mapping with one (a filter is unsupported). */
const conversionMeasure = z.union(
  [z.string(), asWritten(z.looseObject({ name: z.string(), filter: z.unknown().optional() }), "expected a measure name")],
  { error: "expected a measure name" },
);

const cumulativeParams = z.looseObject({ measure: measureInput.nullish() });

const simpleParams = z.looseObject({ measure: measureInput.nullish(), cumulative_type_params: cumulativeParams.nullish() });

const cumulativeTypeParams = simpleParams.extend({ window: z.string().nullish(), grain_to_date: z.string().nullish() });

const ratioParams = z
  .looseObject({ numerator: metricInput.optional(), denominator: metricInput.optional() })
  .transform(({ numerator, denominator }, ctx) => {
    if (numerator !== undefined && denominator !== undefined) return { numerator, denominator };
    ctx.addIssue({ code: "custom", message: "ratio needs numerator and denominator" });
    return z.NEVER;
  });

const inputsError = { error: "a derived metric needs input metrics" };
const derivedParams = z.looseObject({
  metrics: z.array(metricInput, inputsError).min(1, inputsError),
  expr: z.string({ error: "required for a derived metric" }),
});

const conversionParams = z.looseObject({
  conversion_type_params: z.looseObject(
    { base_measure: conversionMeasure, conversion_measure: conversionMeasure },
    { error: "required for a conversion metric" },
  ),
});

const common = {
  name: z.string({ error: `expected ${METRIC_NAME.source}` }).regex(METRIC_NAME, { error: `expected ${METRIC_NAME.source}` }),
  description: z.string().nullish(),
  filter: filterField,
  time_granularity: z.string().nullish(),
  /** set on the metrics a measure's `create_metric: true` makes */
  create_metric: z.boolean().nullish(),
  config: z.looseObject({ meta: mfMetricMeta.nullish() }).nullish(),
};

/** `type_params` absent (or empty) reads as `{}`: its first missing field is named ("type_params.measure: required"). */
const metricOf = <K extends MfMetricType, P extends z.ZodType>(type: K, params: P) =>
  z.looseObject({ ...common, type: z.literal(type), type_params: z.preprocess((value) => value ?? {}, params) });

/** The measure of a simple or cumulative metric: under type_params, or under its cumulative_type_params. */
const withMeasure = <T extends z.output<typeof simpleParams>>(params: T, ctx: z.core.$RefinementCtx) => {
  const measure = params.measure ?? params.cumulative_type_params?.measure;
  if (measure !== undefined && measure !== null) return { ...params, measure };
  ctx.addIssue({ code: "custom", path: ["measure"], message: "required" });
  return z.NEVER;
};

const typeHead = z.looseObject({ type: z.string() });
const lowercaseType = (value: unknown): unknown => {
  const head = typeHead.safeParse(value);
  return head.success ? { ...head.data, type: head.data.type.toLowerCase() } : value;
};

export const mfMetric = z.preprocess(
  lowercaseType,
  z.discriminatedUnion(
    "type",
    [
      metricOf("simple", simpleParams.transform(withMeasure)),
      metricOf("cumulative", cumulativeTypeParams.transform(withMeasure)),
      metricOf("ratio", ratioParams),
      metricOf("derived", derivedParams),
      metricOf("conversion", conversionParams),
    ],
    { error: `expected one of ${MF_METRIC_TYPES.join("|")}` },
  ),
);

export type MfMetric = z.output<typeof mfMetric>;
export type MfMeasureInput = z.output<typeof measureInput>;
export type MfMetricInput = z.output<typeof metricInput>;
