// zod schemas of one metric entry in a catalogue file. Strict objects: an unknown key
// is an error, because a misspelt optional key (say `timestmap`) would otherwise
// silently switch off the rules that depend on it.
import { z } from "zod";
import { isIdentifier, isQualifiedTable } from "../sql/identifiers.js";
import { isRuleId, RULE_IDS } from "./rule-ids.js";
import { anomaliesSchema } from "./anomalies-schema.js";
import { MEASURE_FUNCTIONS } from "./types.js";
import { filterProblem } from "./filter-check.js";
import { crossCheckStructured } from "./cross-checks.js";

export const METRIC_NAME = /^[a-z][a-z0-9_]{0,127}$/;
export const FRESHNESS = /^([1-9][0-9]{0,8})([smhdw])$/;

const oneOf = (values: readonly string[]) => ({ error: `expected one of ${values.join("|")}` });

const metricName = z.string().regex(METRIC_NAME, { error: `expected ${METRIC_NAME.source}` });
const identifier = z
  .string()
  .refine(isIdentifier, { error: "expected a ClickHouse identifier ([A-Za-z_][A-Za-z0-9_]*, at most 128 characters)" });
const table = z.string().refine(isQualifiedTable, { error: "expected database.table, each part a ClickHouse identifier" });
const filter = z.string().superRefine((value, ctx) => {
  const problem = filterProblem(value);
  if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
});
/** An SQL expression is pasted into queries like a filter: the same guard. */
const expression = filter;
const tolerances = z.record(z.string(), z.number().min(0).max(1)).superRefine((value, ctx) => {
  for (const key of Object.keys(value)) {
    if (!isRuleId(key)) ctx.addIssue({ code: "custom", path: [key], message: `unknown rule id; expected one of ${RULE_IDS.join("|")}` });
  }
});

const measure = z.strictObject({
  alias: identifier,
  function: z.enum(MEASURE_FUNCTIONS, oneOf(MEASURE_FUNCTIONS)),
  column: identifier.optional(),
  expr: expression.optional(),
  percentile: z.number().min(0).max(1).optional(),
  non_negative: z.boolean().optional(),
});

const dimension = z.strictObject({
  name: identifier,
  column: identifier.optional(),
  expr: expression.optional(),
  table: table.optional(),
  accepted_values: z
    .array(z.union([z.string(), z.number(), z.boolean()]).transform(String))
    .min(1)
    .optional(),
});

const join = z.strictObject({
  table,
  /** the table holding on.column: an earlier join's table makes a multi-hop path */
  from: table.optional(),
  type: z.enum(["left", "inner"], oneOf(["left", "inner"])).default("left"),
  on: z.strictObject({ column: identifier, references: identifier }),
  relationship: z.enum(["many_to_one", "one_to_one"], oneOf(["many_to_one", "one_to_one"])).default("many_to_one"),
});

export const structuredSchema = z
  .strictObject({
    name: metricName,
    kind: z.enum(["structured", "derived"], oneOf(["structured", "derived"])).optional(),
    description: z.string().optional(),
    datasource: metricName.default("default"),
    table,
    primary_key: identifier.optional(),
    timestamp: identifier.optional(),
    freshness: z.string().regex(FRESHNESS, { error: "expected <n>s|m|h|d|w, e.g. 6h" }).optional(),
    filter: filter.optional(),
    tolerances: tolerances.optional(),
    measures: z.array(measure).min(1, { error: "a structured metric needs at least one measure" }),
    dimensions: z.array(dimension).default([]),
    joins: z.array(join).default([]),
    anomalies: anomaliesSchema.optional(),
  })
  .superRefine(crossCheckStructured);

export const derivedSchema = z
  .strictObject({
    name: metricName,
    kind: z.literal("derived"),
    description: z.string().optional(),
    datasource: metricName.default("default"),
    inputs: z.array(metricName).min(1, { error: "a derived metric needs at least one input" }),
    expression: z.string().optional(),
  })
  .superRefine((value, ctx) => {
    value.inputs.forEach((input, index) => {
      if (value.inputs.indexOf(input) !== index)
        ctx.addIssue({ code: "custom", path: ["inputs", index], message: `duplicate input ${input}` });
      if (input === value.name) ctx.addIssue({ code: "custom", path: ["inputs", index], message: "a metric cannot be its own input" });
    });
  });

export type StructuredInput = z.output<typeof structuredSchema>;
export type DerivedInput = z.output<typeof derivedSchema>;
