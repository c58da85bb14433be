// Response bodies of /v1, as zod schemas: the source of the OpenAPI document (src/api/openapi.ts)
// and, through test/api/response-schemas.test.ts, held equal to the view types the services
// return. Objects are strict in the document (additionalProperties: false), so a field a service
// adds without documenting it here fails the live validation test.
import { z } from "zod";
import "zod-openapi";
import { ANOMALY_GRAINS, ANOMALY_SEASONALITIES, ANOMALY_SEVERITIES, DECLARED_TEST_KINDS, MEASURE_FUNCTIONS } from "../catalog/types.js";
import { ERROR_CODES, type ErrorCode } from "../errors/app-error.js";
import { RULE_IDS } from "../catalog/rule-ids.js";
import { RELIABILITY_STATUSES } from "../derive/types.js";
import { TEST_STATUSES } from "../evaluate/types.js";
import { SEVERITIES } from "../infer/types.js";
import { reliabilityStatus as reliabilityStatusInput } from "./schemas.js";

const count = z.number().int().min(0);
const timestamp = z.iso.datetime().meta({ description: "ISO 8601, UTC" });
const nullableTimestamp = timestamp.nullable();

export const severity = z.enum(SEVERITIES).meta({ id: "Severity" });
export const confidence = z
  .enum(["high", "medium", "low"])
  .meta({ id: "Confidence", description: "high: implied by the definition; lower: a heuristic" });
// A string in the views (the catalogue of rules grows); the document lists today's ids.
export const ruleId = z.string().meta({ id: "RuleId", description: `a rule id: ${RULE_IDS.join(", ")}` });
// The same enum the query parameters parse with, named for the document.
export const reliabilityStatus = reliabilityStatusInput.meta({ id: "ReliabilityStatus" });
export const testStatus = z.enum(TEST_STATUSES).meta({ id: "TestStatus" });

/** Opaque position after the last item of a page; null on the last page. */
export const nextCursor = z
  .string()
  .nullable()
  .meta({ description: "with any query parameter: pass as `cursor` for the next page; null on the last page" });

export const testCountsSchema = z.object({ total: count, passing: count, failing: count, warning: count }).meta({ id: "TestCounts" });

export const inferredTestSchema = z
  .object({
    metric: z.string(),
    rule: ruleId,
    name: z.string(),
    check: z.string().meta({ description: "textual expression of the check" }),
    severity,
    confidence,
    status: z.literal("pending"),
  })
  .meta({ id: "InferredTest" });

export const testListingSchema = z
  .object({
    tests: z.array(inferredTestSchema),
    count,
    // Present when the request had a page or filter parameter (see services/views.ts).
    next_cursor: nextCursor.optional(),
  })
  .meta({ id: "TestListing" });

export const testResultSchema = z
  .object({
    metric: z.string(),
    rule: ruleId,
    name: z.string(),
    severity,
    confidence,
    status: testStatus,
    rows_affected: count,
    rows_total: count,
    message: z.string(),
    sample_sql: z.string().meta({ description: "a ClickHouse query returning up to 10 violating rows" }),
    check: z.string(),
  })
  .meta({ id: "TestResult" });

export const testRunSchema = z
  .object({ summary: testCountsSchema, tests: z.array(testResultSchema), ran_at: timestamp })
  .meta({ id: "TestRun" });

export const metricIRSchema = z
  .object({
    name: z.string(),
    kind: z.enum(["structured", "derived"]),
    datasource: z.string(),
    measures: z.array(
      z
        .object({
          alias: z.string(),
          function: z.enum(MEASURE_FUNCTIONS),
          column: z.string().nullable(),
          expr: z.string().nullable().meta({ description: "SQL expression aggregated instead of a column" }),
          expr_columns: z.array(z.string()),
          percentile: z.number().optional().meta({ description: "Percentile measures only" }),
          non_negative: z.boolean().optional().meta({ description: "present when the definition declares it" }),
        })
        .meta({ id: "MeasureIR" }),
    ),
    dimensions: z.array(
      z
        .object({
          name: z.string(),
          source_table: z.string().nullable().meta({ description: "database.table the column is read from; null for the base table" }),
          column: z.string().nullable().meta({ description: "null for a dimension that is an SQL expression" }),
          expr: z.string().nullable(),
          expr_columns: z.array(z.string()),
          accepted_values: z.array(z.string()).optional(),
        })
        .meta({ id: "DimensionIR" }),
    ),
    joins: z.array(
      z
        .object({
          table: z.string(),
          from_table: z.string().meta({ description: "the table holding left_column: the base table, or an earlier join's (multi-hop)" }),
          type: z.enum(["left", "inner"]),
          left_column: z.string(),
          right_column: z.string(),
          relationship: z.enum(["many_to_one", "one_to_one"]),
        })
        .meta({ id: "JoinIR" }),
    ),
    description: z.string().nullable(),
    table: z.string().nullable().meta({ description: "base table (database.table); null for derived metrics" }),
    primary_key: z.string().nullable(),
    filter: z.string().nullable(),
    filter_columns: z.array(z.string()),
    timestamp: z.string().nullable(),
    freshness_seconds: z.number().nullable(),
    inputs: z.array(z.string()).meta({ description: "derived metrics: the metrics they are built from" }),
    tolerances: z.record(z.string(), z.number()),
    declared_tests: z.array(
      z
        .object({
          kind: z.enum(DECLARED_TEST_KINDS),
          table: z.string(),
          column: z.string(),
          severity: z.enum(["error", "warn"]),
          to: z.object({ table: z.string(), column: z.string() }).optional(),
          values: z.array(z.string()).optional(),
          file: z.string(),
        })
        .meta({ id: "DeclaredTest", description: "a dbt column test declared on a table the metric reads" }),
    ),
    anomalies: z
      .object({
        enabled: z.boolean().meta({ description: "false without a timestamp, or when switched off" }),
        grain: z.enum(ANOMALY_GRAINS),
        training_buckets: count,
        detection_buckets: count,
        sensitivity: z.number().meta({ description: "the expected band's half-width in robust deviations" }),
        freshness_sensitivity: z.number().meta({ description: "freshness_anomaly's, in robust deviations of the log gaps between rows" }),
        seasonality: z.enum(ANOMALY_SEASONALITIES),
        severity: z.enum(ANOMALY_SEVERITIES).meta({ description: "medium: an anomaly makes the metric degraded; high: unreliable" }),
        holidays: z
          .string()
          .nullable()
          .meta({ description: "country (US) or country-subdivision (DE-BY) whose public holidays neither train nor alarm; null: none" }),
        exclude: z
          .array(
            z
              .object({ from: timestamp, to: timestamp.meta({ description: "exclusive" }), reason: z.string() })
              .meta({ id: "AnomalyExclusion", description: "a planned exclusion: buckets overlapping [from, to) neither train nor alarm" }),
          )
          .meta({ description: "ANOMALY_EXCLUDE's, then the metric's own" }),
        segments: z
          .array(z.string())
          .meta({ description: "dimensions (of the base table) whose values each get their own volume and value series" }),
        max_segments: count.meta({ description: "values per segment dimension with their own series; the rest is one `other` series" }),
      })
      .nullable()
      .meta({ id: "AnomalySettings", description: "anomaly rules' settings, defaults resolved; null for derived metrics" }),
    source: z.object({ format: z.enum(["ours", "metricflow"]), file: z.string() }).meta({ description: "where the definition came from" }),
    metricflow: z.record(z.string(), z.unknown()).nullable().meta({ description: "MetricFlow semantics kept as declared" }),
    file: z.string(),
  })
  .meta({ id: "MetricIR" });

export const compilerStatusSchema = z
  .object({
    metrics: z.array(metricIRSchema),
    count,
    compiled_at: timestamp,
    errors: z.array(z.object({ metric: z.string().nullable(), file: z.string(), message: z.string() }).meta({ id: "CatalogError" })),
    warnings: z
      .array(z.object({ file: z.string(), message: z.string() }).meta({ id: "CatalogWarning" }))
      .meta({ description: "files of no known form, declared tests that are not run: never fatal" }),
    next_cursor: nextCursor.optional(),
  })
  .meta({ id: "CompilerStatus" });

export const statusEntrySchema = z
  .object({
    metric_name: z.string(),
    status: reliabilityStatus,
    safe_to_use: z.boolean(),
    checked_at: nullableTimestamp,
    since: nullableTimestamp.meta({ description: "since when the status has held" }),
  })
  .meta({ id: "StatusEntry" });

export const statusSummarySchema = z
  .object({
    total: count,
    ...(Object.fromEntries(RELIABILITY_STATUSES.map((s) => [s, count])) as Record<(typeof RELIABILITY_STATUSES)[number], typeof count>),
  })
  .meta({ id: "StatusSummary" });

export const statusListingSchema = z
  .object({ summary: statusSummarySchema, metrics: z.array(statusEntrySchema), next_cursor: nextCursor.optional() })
  .meta({ id: "StatusListing" });

export const statusPeriodSchema = z
  .object({ status: reliabilityStatus, from: timestamp, to: nullableTimestamp })
  .meta({ id: "StatusPeriod" });

export const metricStatusSchema = statusEntrySchema
  .extend({
    scan_id: z.string().nullable(),
    tests: testCountsSchema,
    failing_tests: z.array(testResultSchema).meta({ description: "failing and warning tests of the latest scan" }),
    history: z.array(statusPeriodSchema).meta({ description: "newest first" }),
  })
  .meta({ id: "MetricStatus" });

export const affectedBySchema = z
  .object({
    table: z.string(),
    affected_metrics: z.array(
      z
        .object({ metric_name: z.string(), relationship: z.enum(["base_table", "join", "dimension", "derived"]) })
        .meta({ id: "AffectedMetric" }),
    ),
    count,
  })
  .meta({ id: "AffectedBy" });

export const scanSchema = z
  .object({
    scan_id: z.uuid(),
    status: z.enum(["running", "succeeded", "failed", "aborted"]),
    trigger: z.enum(["manual", "schedule", "startup", "api_run"]),
    started_at: timestamp,
    finished_at: nullableTimestamp,
    error: z.string().nullable(),
    summary: testCountsSchema.nullable(),
  })
  .meta({ id: "Scan" });

export const scanTriggerSchema = scanSchema
  .extend({ coalesced: z.boolean().meta({ description: "true: the request joined a scan already running" }) })
  .meta({ id: "ScanTrigger" });

export const errorBodySchema = z
  .object({
    error: z.object({ code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]), message: z.string() }),
  })
  .meta({ id: "Error" });

/** A tRPC call's error body (single calls; a batch answers an array of them). */
export const trpcErrorSchema = z
  .object({
    error: z.object({
      message: z.string(),
      code: z.number().int().meta({ description: "JSON-RPC 2.0 error code" }),
      data: z.object({
        code: z.string().meta({ description: "tRPC error code, e.g. NOT_FOUND" }),
        httpStatus: z.number().int(),
        path: z.string().optional().meta({ description: "the procedure, e.g. reliability.statusByName" }),
        appCode: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]).meta({ description: "REST's error.code" }),
      }),
    }),
  })
  .meta({ id: "TrpcError" });

const nullableNumber = z.number().nullable();

export const anomalyBucketSchema = z
  .object({
    start: timestamp.meta({ description: "the bucket's start, ISO 8601 UTC" }),
    value: nullableNumber.meta({ description: "the observed value; null where the bucket has none (an average of no rows)" }),
    expected: nullableNumber.meta({ description: "null where the bucket had too little history to be scored" }),
    lower: nullableNumber,
    upper: nullableNumber,
    anomalous: z.boolean(),
    feedback: z.boolean().meta({ description: "a person marked it expected: never flagged, used in training" }),
    excluded: z.string().nullable().meta({
      description:
        'why the bucket neither trains nor alarms: "holiday: Christmas Day" (anomalies.holidays) or a planned exclusion\'s reason (anomalies.exclude); null otherwise',
    }),
  })
  .meta({ id: "AnomalyBucket" });

export const anomaliesSchema = z
  .object({
    metric: z.string(),
    series: z.array(
      z
        .object({
          rule: z.enum(["volume_anomaly", "metric_value_anomaly"]),
          measure: z.string().meta({ description: "rows for the volume series; the measure's alias (input.alias in a derived metric)" }),
          grain: z.enum(ANOMALY_GRAINS),
          segment: z
            .object({
              dimension: z.string().meta({ description: "the dimension named in anomalies.segments" }),
              value: z.string().nullable().meta({ description: "the dimension's value as text; null: NULL (or, with other, none)" }),
              other: z.boolean().meta({ description: "true: the values beyond the top max_segments, folded into one series" }),
            })
            .nullable()
            .meta({
              id: "AnomalySegment",
              description: "the segment this series is of (anomalies.segments); null: the metric's total series",
            }),
          buckets: z.array(anomalyBucketSchema).meta({ description: "every bucket of the training and detection span, oldest first" }),
        })
        .meta({ id: "AnomalySeries" }),
    ),
  })
  .meta({ id: "Anomalies" });

export const anomalyFeedbackSchema = z
  .object({
    metric: z.string(),
    rule: z.enum(["volume_anomaly", "metric_value_anomaly"]),
    measure: z.string(),
    start: timestamp,
    expected: z.literal(true),
    created_at: timestamp.meta({ description: "when the bucket was first marked expected" }),
  })
  .meta({ id: "AnomalyFeedback" });

// Incidents (src/incidents, docs/incidents.md): failing tests grouped by the table they read.
const incidentFields = {
  id: z.uuid(),
  state: z.enum(["open", "resolved"]),
  datasource: z.string(),
  table: z.string().meta({ description: "the root table (database.table) every test of the incident reads" }),
  opened_at: timestamp.meta({ description: "when the scan that saw its first failing test finished" }),
  resolved_at: nullableTimestamp.meta({ description: "when the scan that saw its last failing test pass finished; null while open" }),
  opened_scan_id: z.string(),
  resolved_scan_id: z.string().nullable(),
  updated_at: timestamp.meta({ description: "when a scan last changed it (a test or metric joined or left)" }),
  failing_tests: count.meta({ description: "tests failing as of the newest scan (0 once resolved)" }),
  metrics_unreliable: count.meta({ description: "metrics it makes unreliable (once resolved: made, at the end)" }),
  metrics_degraded: count.meta({ description: "metrics it makes degraded (once resolved: made, at the end)" }),
};

export const incidentSummarySchema = z.object(incidentFields).meta({ id: "IncidentSummary" });

export const incidentListingSchema = z
  .object({
    incidents: z.array(incidentSummarySchema).meta({ description: "newest opened first" }),
    count: count.meta({ description: "incidents matching the state filter, on every page" }),
    next_cursor: nextCursor,
  })
  .meta({ id: "IncidentListing" });

export const incidentSchema = z
  .object({
    ...incidentFields,
    tests: z.array(
      z
        .object({
          rule: ruleId,
          name: z.string(),
          check: z.string(),
          column: z.string().nullable().meta({ description: "the root column, when the test reads exactly one column of the table" }),
          severity,
          failing: z.boolean().meta({ description: "failing as of the newest scan" }),
          since: timestamp,
          until: nullableTimestamp,
          message: z.string().nullable().meta({ description: "what the newest scan found (null: the check is no longer run)" }),
          sample_sql: z.string().nullable(),
        })
        .meta({ id: "IncidentTest" }),
    ),
    metrics: z.array(
      z
        .object({
          metric_name: z.string(),
          impact: z
            .enum(["unreliable", "degraded"])
            .meta({ description: "what the incident makes it now (what it made it last, once no longer affected)" }),
          relationship: z.enum(["direct", "derived"]).meta({ description: "derived: built on a metric with a failing test" }),
          affected: z.boolean().meta({ description: "still affected as of the newest scan" }),
          since: timestamp,
          until: nullableTimestamp,
          status: reliabilityStatus.meta({ description: "the metric's current status" }),
        })
        .meta({ id: "IncidentMetric" }),
    ),
  })
  .meta({ id: "Incident" });
