// Validates one raw metric entry and maps it onto the catalogue's definition types.
import { derivedSchema, FRESHNESS, structuredSchema, type DerivedInput, type StructuredInput } from "./metric-schema.js";
import { formatIssue } from "./format-issue.js";
import { isMapping } from "./mapping.js";
import type { DerivedMetricDefinition, MetricDefinition, StructuredMetricDefinition } from "./types.js";

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** "6h" -> 21600 (the schema has already checked the format). */
export function freshnessSeconds(text: string): number {
  const match = FRESHNESS.exec(text);
  if (!match) throw new Error(`invalid freshness ${JSON.stringify(text)}`);
  return Number(match[1]) * UNIT_SECONDS[match[2]!]!;
}

function structured(v: StructuredInput, file: string): StructuredMetricDefinition {
  return {
    kind: "structured",
    name: v.name,
    description: v.description ?? null,
    datasource: v.datasource,
    table: v.table,
    primary_key: v.primary_key ?? null,
    timestamp: v.timestamp ?? null,
    freshness_seconds: v.freshness === undefined ? null : freshnessSeconds(v.freshness),
    // Trimmed: the filter is part of every test key, so whitespace must not split groups.
    filter: v.filter === undefined ? null : v.filter.trim(),
    measures: v.measures.map((m) => ({
      alias: m.alias,
      function: m.function,
      column: m.column ?? null,
      expr: m.expr === undefined ? null : m.expr.trim(),
      ...(m.percentile === undefined ? {} : { percentile: m.percentile }),
      ...(m.non_negative === undefined ? {} : { non_negative: m.non_negative }),
    })),
    dimensions: v.dimensions.map((d) => ({
      name: d.name,
      column: d.column ?? null,
      expr: d.expr === undefined ? null : d.expr.trim(),
      ...(d.table === undefined ? {} : { table: d.table }),
      ...(d.accepted_values === undefined ? {} : { accepted_values: d.accepted_values }),
    })),
    joins: v.joins.map((j) => ({
      table: j.table,
      type: j.type,
      from: j.from ?? v.table,
      column: j.on.column,
      references: j.on.references,
      relationship: j.relationship,
    })),
    tolerances: { ...(v.tolerances ?? {}) },
    declared_tests: [],
    source: { format: "ours", file },
    metricflow: null,
    file,
  };
}

function derived(v: DerivedInput, file: string): DerivedMetricDefinition {
  return {
    kind: "derived",
    name: v.name,
    description: v.description ?? null,
    datasource: v.datasource,
    inputs: [...v.inputs],
    expression: v.expression ?? null,
    source: { format: "ours", file },
    metricflow: null,
    file,
  };
}

export type EntryResult = { ok: true; metric: MetricDefinition } | { ok: false; problems: string[] };

export function toDefinition(raw: unknown, file: string): EntryResult {
  if (!isMapping(raw)) return { ok: false, problems: ["(metric): expected a mapping"] };
  const isDerived = raw.kind === "derived";
  const result = isDerived ? derivedSchema.safeParse(raw) : structuredSchema.safeParse(raw);
  if (!result.success) return { ok: false, problems: result.error.issues.flatMap((issue) => formatIssue(issue, raw)) };
  const metric = isDerived ? derived(result.data as DerivedInput, file) : structured(result.data as StructuredInput, file);
  return { ok: true, metric };
}
