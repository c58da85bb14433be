// The OpenAPI 3.1 document of /v1, served at GET /v1/openapi.json. Generated from the zod
// schemas the handlers parse with (src/api/schemas.ts) and the response schemas the services'
// views are held to (src/api/response-schemas.ts): nothing here is a hand-written JSON Schema.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponsesObject } from "zod-openapi";
import {
  affectedBySchema,
  compilerStatusSchema,
  errorBodySchema,
  metricIRSchema,
  metricStatusSchema,
  scanSchema,
  scanTriggerSchema,
  statusListingSchema,
  testListingSchema,
  testRunSchema,
} from "./response-schemas.js";
import { irListingQuery, metricNameInput, scanIdInput, scanInput, statusListingQuery, tableInput, testListingQuery } from "./schemas.js";

export const OPENAPI_PATH = "/v1/openapi.json";

const json = (schema: z.ZodType) => ({ "application/json": { schema } });
const ok = (description: string, schema: z.ZodType) => ({ description, content: json(schema) });

const error = (description: string, headers?: z.ZodObject) => ({
  description,
  content: json(errorBodySchema),
  ...(headers ? { headers } : {}),
});
const retryAfter = z.object({ "Retry-After": z.string().meta({ description: "seconds to wait before retrying" }) });

/** The errors every authenticated endpoint can answer. */
const commonErrors: ZodOpenApiResponsesObject = {
  "400": error("bad_request: a parameter of the wrong form (the message names it)"),
  "401": error("unauthorized: missing or unknown key", z.object({ "WWW-Authenticate": z.literal("Bearer") })),
  "500": error("internal: a bug (no stack trace in the body)"),
  "503": error("unavailable: the store or the warehouse is down, or the request timed out"),
};
const notFound = { "404": error("not_found: the message names what is missing") };
const writeErrors: ZodOpenApiResponsesObject = {
  "403": error("forbidden: a read-only key"),
  "429": error("rate_limited: too many POST requests with this key", retryAfter),
};

function get(
  summary: string,
  responses: ZodOpenApiResponsesObject,
  extra: Partial<ZodOpenApiOperationObject> = {},
): ZodOpenApiOperationObject {
  return { summary, ...extra, responses: { ...responses, ...commonErrors } };
}

function post(
  summary: string,
  responses: ZodOpenApiResponsesObject,
  extra: Partial<ZodOpenApiOperationObject> = {},
): ZodOpenApiOperationObject {
  return { summary, ...extra, responses: { ...responses, ...commonErrors, ...writeErrors } };
}

/** The package's version (src/api and dist/api are both two levels below package.json). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

export function buildOpenApiDocument(version: string = packageVersion()): ReturnType<typeof createDocument> {
  const compilerIr = get(
    "Compiled IR of every metric, and the catalogue's errors",
    { "200": ok("the compiled catalogue", compilerStatusSchema) },
    {
      requestParams: { query: irListingQuery },
    },
  );
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "metric-reliability",
      version,
      description:
        "Inferred data tests, compiled metric definitions and metric reliability. Every operation has a tRPC twin under /trpc " +
        "with the same input, output and auth. Errors always have the body { error: { code, message } }.",
    },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "an API key (API_KEYS or API_READONLY_KEYS)" } },
    },
    security: [{ bearer: [] }],
    paths: {
      [OPENAPI_PATH]: {
        get: {
          summary: "This document",
          security: [],
          responses: { "200": { description: "OpenAPI 3.1 document", content: { "application/json": {} } } },
        },
      },
      "/v1/validation/tests": {
        get: get(
          "Tests inferred for every metric (never queries the warehouse)",
          { "200": ok("the inferred tests", testListingSchema) },
          {
            requestParams: { query: testListingQuery },
          },
        ),
      },
      "/v1/semantic-tests/run": {
        post: post("Run every inferred test on the warehouse now (through the scan service: statuses update too)", {
          "200": ok("the results of the finished scan", testRunSchema),
        }),
      },
      "/v1/compiler/ir": { get: compilerIr },
      "/v1/compiler/status": { get: { ...compilerIr, summary: "Alias of /v1/compiler/ir" } },
      "/v1/compiler/ir/{name}": {
        get: get(
          "Compiled IR of one metric",
          { "200": ok("the metric's IR", metricIRSchema), ...notFound },
          { requestParams: { path: metricNameInput } },
        ),
      },
      "/v1/reliability/status": {
        get: get(
          "Reliability status of every metric",
          { "200": ok("summary and one entry per metric", statusListingSchema) },
          {
            requestParams: { query: statusListingQuery },
          },
        ),
      },
      "/v1/reliability/status/{name}": {
        get: get(
          "Reliability status of one metric, with its failing tests and status history",
          { "200": ok("the metric's status", metricStatusSchema), ...notFound },
          {
            requestParams: { path: metricNameInput },
          },
        ),
      },
      "/v1/reliability/affected-by/{table}": {
        get: get(
          "Metrics that read a table (an unknown table gives count 0)",
          { "200": ok("the affected metrics", affectedBySchema) },
          {
            requestParams: { path: tableInput },
          },
        ),
      },
      "/v1/reliability/scan": {
        post: post(
          "Trigger a scan (joins the running one, coalesced: true)",
          { "200": ok("with wait=true: the finished scan", scanTriggerSchema), "202": ok("the scan, still running", scanTriggerSchema) },
          { requestParams: { query: scanInput } },
        ),
      },
      "/v1/reliability/scans/{id}": {
        get: get(
          "One scan's state and summary",
          { "200": ok("the scan", scanSchema), ...notFound },
          { requestParams: { path: scanIdInput } },
        ),
      },
    },
  });
}
