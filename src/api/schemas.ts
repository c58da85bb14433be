// The ONE set of input schemas, shared by REST handlers and tRPC procedures, so both
// transports accept and reject exactly the same input. Messages name the parameter and
// the expected form but never echo the value (it may be 10 KB of hostile text).
import { z } from "zod";
import { RELIABILITY_STATUSES } from "../derive/types.js";
import { badRequest, type AppError } from "../errors/app-error.js";

export const METRIC_NAME = /^[a-z][a-z0-9_]{0,127}$/;
const IDENT = "[A-Za-z_][A-Za-z0-9_]{0,127}";
/** database.table; a bare table name is accepted too and matches that table in any database. */
export const TABLE_NAME = new RegExp(`^(?:${IDENT}\\.)?${IDENT}$`);

// Length is checked first so a huge value is rejected before any pattern work.
export const metricName = z
  .string({ error: "expected a string" })
  .max(128, { error: "expected a metric name of at most 128 characters" })
  .regex(METRIC_NAME, { error: `expected a metric name matching ${METRIC_NAME.source}` });

export const tableName = z
  .string({ error: "expected a string" })
  .max(257, { error: "expected a table name of at most 257 characters" })
  .regex(TABLE_NAME, { error: "expected a table name: database.table (or a bare table name)" });

export const scanId = z
  .string({ error: "expected a string" })
  .max(64, { error: "expected a scan id (UUID)" })
  .pipe(z.uuid({ error: "expected a scan id (UUID)" }))
  // Ids are stored lower-case (randomUUID); accept either case.
  .transform((id) => id.toLowerCase());

/** A boolean in tRPC; in a query string only the literal "true" / "false". */
export const waitFlag = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")], {
  error: "expected true or false",
});

/** A whole number in tRPC; in a query string its decimal digits. */
export const pageLimit = z
  .union(
    [
      z.number(),
      z
        .string()
        .max(6, { error: "expected a whole number from 1 to 10000" })
        .regex(/^\d+$/, { error: "expected a whole number from 1 to 10000" })
        .transform(Number),
    ],
    {
      error: "expected a whole number from 1 to 10000",
    },
  )
  .pipe(
    z
      .number()
      .int({ error: "expected a whole number from 1 to 10000" })
      .min(1, { error: "expected a whole number from 1 to 10000" })
      .max(10_000, { error: "expected a whole number from 1 to 10000" }),
  );

/** Opaque: the next_cursor of a previous page. */
export const pageCursor = z
  .string({ error: "expected a string" })
  .max(128, { error: "expected a cursor returned as next_cursor" })
  .regex(/^[A-Za-z0-9_-]+$/, { error: "expected a cursor returned as next_cursor" });

export const ruleId = z
  .string({ error: "expected a string" })
  .max(64, { error: "expected a rule id" })
  .regex(/^[a-z][a-z0-9_]*$/, { error: "expected a rule id (snake_case)" });

export const reliabilityStatus = z.enum(RELIABILITY_STATUSES, {
  error: `expected ${RELIABILITY_STATUSES.slice(0, -1).join(", ")} or ${RELIABILITY_STATUSES.at(-1)}`,
});

const page = { limit: pageLimit.optional(), cursor: pageCursor.optional() };
export const testListingQuery = z.object({ ...page, metric: metricName.optional(), rule: ruleId.optional(), table: tableName.optional() });
export const statusListingQuery = z.object({
  ...page,
  metric: metricName.optional(),
  status: reliabilityStatus.optional(),
  table: tableName.optional(),
});
export const irListingQuery = z.object({ ...page, metric: metricName.optional(), table: tableName.optional() });

export const metricNameInput = z.object({ name: metricName });
export const tableInput = z.object({ table: tableName });
export const scanIdInput = z.object({ id: scanId });
export const scanInput = z.object({ wait: waitFlag.optional() });
/** The input of an endpoint that takes none (tRPC: no input; REST: the query string is ignored). */
export const noInput = z.object({});

/** The anomaly series rules: the ones with buckets a chart can draw and feedback can mark. */
export const SERIES_RULES = ["volume_anomaly", "metric_value_anomaly"] as const;
export const anomaliesInput = z.object({ metric: metricName });
export const anomalyFeedbackInput = z.object({
  metric: metricName,
  rule: z.enum(SERIES_RULES, { error: `expected one of ${SERIES_RULES.join(", ")}` }),
  measure: z
    .string({ error: "expected a string" })
    .max(300, { error: "expected a measure name of at most 300 characters" })
    .regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/, {
      error: "expected a measure name (alias, or input.alias of a derived metric)",
    }),
  start: z
    .string({ error: "expected a string" })
    .max(64, { error: "expected an ISO 8601 timestamp" })
    .pipe(z.iso.datetime({ offset: true, error: "expected an ISO 8601 timestamp, e.g. 2026-11-23T00:00:00.000Z" })),
  expected: z.literal(true, { error: "expected true (feedback marks a flagged bucket as expected)" }),
});

export type AnomalyFeedbackInput = z.output<typeof anomalyFeedbackInput>;

export type ScanInput = z.output<typeof scanInput>;

/** One line naming the parameter of the first problem, e.g. `invalid name: expected a metric name ...`. */
export function issuesMessage(issues: readonly { path?: readonly PropertyKey[]; message: string }[]): string {
  const issue = issues[0];
  if (!issue) return "invalid input";
  const path = (issue.path ?? []).map((p) => String(p)).join(".");
  // zod's own messages for a missing/mistyped whole input already start with "Invalid input".
  return path ? `invalid parameter "${path}": ${issue.message}` : issue.message;
}

export function invalidInput(issues: readonly { path?: readonly PropertyKey[]; message: string }[]): AppError {
  return badRequest(issuesMessage(issues));
}

/** REST: parse or throw AppError bad_request. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidInput(result.error.issues);
  return result.data;
}

export const incidentListingQuery = z.object({
  ...page,
  state: z.enum(["open", "resolved"], { error: "expected open or resolved" }).optional(),
});
export const incidentIdInput = z.object({
  id: z
    .string({ error: "expected a string" })
    .max(64, { error: "expected an incident id (UUID)" })
    .pipe(z.uuid({ error: "expected an incident id (UUID)" }))
    .transform((id) => id.toLowerCase()),
});
