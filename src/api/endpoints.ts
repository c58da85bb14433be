// THE endpoint table: one entry per endpoint. The REST route (rest/routes.ts), the tRPC procedure
// (trpc/router.ts) and both OpenAPI operations (openapi.ts: the REST one, and the tRPC one under
// /trpc/{procedure}) are generated from it; nothing else lists endpoints.
//
// Adding an endpoint = adding one entry (test/api/endpoints.test.ts then checks that it is served
// by REST and tRPC and documented):
//
//   "reliability.feedback": endpoint({
//     method: "POST",                                  // GET = tRPC query, POST = tRPC mutation
//     path: "/v1/reliability/anomalies/:metric/feedback", // every :param is a field of `input`
//     auth: "write",                                   // "write" for POST, "read" for GET
//     summary: "Mark an anomaly as expected",          // one line, for the OpenAPI document
//     input: feedbackInput,                            // ONE z.object from schemas.ts: { metric, rule, measure, start, expected }
//     body: true,                                      // REST: fields outside the path come from the JSON body
//                                                      //   (without it: from the query string)
//     output: feedbackSchema,                          // from response-schemas.ts; `call` must return its type
//     success: { 200: "the feedback as stored" },      // a description per success status
//     errors: ["not_found"],                           // beyond 400/401/500/503 (+403/429 for writes)
//     call: (s, input) => s.reliability.feedback(input), // one service call; input is the parsed object
//   }),
//
// The key is the tRPC procedure name (`namespace.procedure`, what @trpc/client calls) and the
// REST operation's operationId. Optional: `status: (input) => 200 | 202` when the success status
// depends on the input (list each in `success`). tRPC takes the input as one object: optional when
// `{}` is valid (listings), none at all for `noInput`. Auth, rate limits, deadlines, error bodies
// and serialised-answer caching are the transports' and services/cached-services.ts's business.
import { endpoint, type EndpointTable } from "./endpoint.js";
import {
  affectedBySchema,
  anomaliesSchema,
  anomalyFeedbackSchema,
  compilerStatusSchema,
  incidentListingSchema,
  incidentSchema,
  metricIRSchema,
  metricStatusSchema,
  scanSchema,
  scanTriggerSchema,
  statusListingSchema,
  testListingSchema,
  testRunSchema,
} from "./response-schemas.js";
import {
  anomaliesInput,
  anomalyFeedbackInput,
  incidentIdInput,
  incidentListingQuery,
  irListingQuery,
  metricNameInput,
  noInput,
  scanIdInput,
  scanInput,
  statusListingQuery,
  tableInput,
  testListingQuery,
} from "./schemas.js";

export const endpoints = {
  "validation.tests": endpoint({
    method: "GET",
    path: "/v1/validation/tests",
    auth: "read",
    summary: "Tests inferred for every metric (never queries the warehouse)",
    input: testListingQuery,
    output: testListingSchema,
    success: { 200: "the inferred tests" },
    call: (s, query) => s.validation.listTests(query),
  }),
  "semanticTests.run": endpoint({
    method: "POST",
    path: "/v1/semantic-tests/run",
    auth: "write",
    summary: "Run every inferred test on the warehouse now (through the scan service: statuses update too)",
    input: noInput,
    output: testRunSchema,
    success: { 200: "the results of the finished scan" },
    call: (s) => s.validation.runTests(),
  }),
  "compiler.ir": endpoint({
    method: "GET",
    path: "/v1/compiler/ir",
    auth: "read",
    summary: "Compiled IR of every metric, and the catalogue's errors",
    input: irListingQuery,
    output: compilerStatusSchema,
    success: { 200: "the compiled catalogue" },
    call: (s, query) => s.compiler.status(query),
  }),
  "compiler.status": endpoint({
    method: "GET",
    path: "/v1/compiler/status",
    auth: "read",
    summary: "Alias of /v1/compiler/ir",
    input: irListingQuery,
    output: compilerStatusSchema,
    success: { 200: "the compiled catalogue" },
    call: (s, query) => s.compiler.status(query),
  }),
  "compiler.irByName": endpoint({
    method: "GET",
    path: "/v1/compiler/ir/:name",
    auth: "read",
    summary: "Compiled IR of one metric",
    input: metricNameInput,
    output: metricIRSchema,
    success: { 200: "the metric's IR" },
    errors: ["not_found"],
    call: (s, { name }) => s.compiler.irByName(name),
  }),
  "reliability.status": endpoint({
    method: "GET",
    path: "/v1/reliability/status",
    auth: "read",
    summary: "Reliability status of every metric",
    input: statusListingQuery,
    output: statusListingSchema,
    success: { 200: "summary and one entry per metric" },
    call: (s, query) => s.reliability.status(query),
  }),
  "reliability.statusByName": endpoint({
    method: "GET",
    path: "/v1/reliability/status/:name",
    auth: "read",
    summary: "Reliability status of one metric, with its failing tests and status history",
    input: metricNameInput,
    output: metricStatusSchema,
    success: { 200: "the metric's status" },
    errors: ["not_found"],
    call: (s, { name }) => s.reliability.metricStatus(name),
  }),
  "reliability.affectedBy": endpoint({
    method: "GET",
    path: "/v1/reliability/affected-by/:table",
    auth: "read",
    summary: "Metrics that read a table (an unknown table gives count 0)",
    input: tableInput,
    output: affectedBySchema,
    success: { 200: "the affected metrics" },
    call: (s, { table }) => s.reliability.affectedBy(table),
  }),
  "reliability.scan": endpoint({
    method: "POST",
    path: "/v1/reliability/scan",
    auth: "write",
    summary: "Trigger a scan (joins the running one, coalesced: true)",
    input: scanInput,
    output: scanTriggerSchema,
    // 202: accepted and still running; 200: the finished scan (?wait=true). tRPC answers 200 either way.
    success: { 200: "with wait=true: the finished scan", 202: "the scan, still running" },
    status: ({ wait }) => (wait ? 200 : 202),
    call: (s, { wait }) => s.reliability.triggerScan({ wait: wait ?? false }),
  }),
  "reliability.scanById": endpoint({
    method: "GET",
    path: "/v1/reliability/scans/:id",
    auth: "read",
    summary: "One scan's state and summary",
    input: scanIdInput,
    output: scanSchema,
    success: { 200: "the scan" },
    errors: ["not_found"],
    call: (s, { id }) => s.reliability.getScan(id),
  }),
  "reliability.anomalies": endpoint({
    method: "GET",
    path: "/v1/reliability/anomalies/:metric",
    auth: "read",
    summary: "A metric's anomaly series: every bucket of the training and detection span with its expected band, oldest first",
    input: anomaliesInput,
    output: anomaliesSchema,
    success: { 200: "the metric's series (none for a metric without anomaly rules)" },
    errors: ["not_found"],
    call: (s, { metric }) => s.anomalies.series(metric),
  }),
  "reliability.anomalyFeedback": endpoint({
    method: "POST",
    path: "/v1/reliability/anomalies/:metric/feedback",
    auth: "write",
    summary: "Mark a flagged bucket as expected: it stops alerting and goes back into training (at the next scan)",
    input: anomalyFeedbackInput,
    body: true,
    output: anomalyFeedbackSchema,
    success: { 200: "the feedback as stored (marking a bucket twice keeps the first)" },
    errors: ["not_found"],
    call: (s, input) => s.anomalies.feedback(input),
  }),
  "reliability.incidents": endpoint({
    method: "GET",
    path: "/v1/reliability/incidents",
    auth: "read",
    summary: "Incidents (failing tests grouped by the table they read), newest opened first; state=open|resolved filters",
    input: incidentListingQuery,
    output: incidentListingSchema,
    success: { 200: "a page of incidents" },
    call: (s, query) => s.reliability.incidents(query),
  }),
  "reliability.incidentById": endpoint({
    method: "GET",
    path: "/v1/reliability/incidents/:id",
    auth: "read",
    summary: "One incident with its tests and the metrics it makes unreliable or degraded",
    input: incidentIdInput,
    output: incidentSchema,
    success: { 200: "the incident" },
    errors: ["not_found"],
    call: (s, { id }) => s.reliability.incident(id),
  }),
} satisfies EndpointTable;

export type Endpoints = typeof endpoints;
