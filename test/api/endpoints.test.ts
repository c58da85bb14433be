// The endpoint table (src/api/endpoints.ts) is the only list of endpoints: every entry is served
// by REST and by tRPC and documented in /v1/openapi.json, and an entry added to the table (here a
// test-only one whose input merges a path parameter and a JSON body, as the anomaly feedback
// endpoint will) shows up in all three with nothing else to write. On the real services, the
// real store (PGlite) and the real HTTP app; the warehouse is a port nothing listens on.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Validator } from "@seriousme/openapi-schema-validator";
import { createTRPCClient, httpLink } from "@trpc/client";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { endpoint, openApiPath, pathParams, type EndpointTable } from "../../src/api/endpoint.js";
import { endpoints } from "../../src/api/endpoints.js";
import { createHttpApp } from "../../src/api/http-app.js";
import { buildOpenApiDocument } from "../../src/api/openapi.js";
import { metricName, ruleId } from "../../src/api/schemas.js";
import type { AppRouter, routerOf } from "../../src/api/trpc/router.js";
import type { MetricIR } from "../../src/compile/ir.js";
import { DEMO_METRICS_DIR } from "../../src/config/config.js";
import { createReadiness } from "../../src/health/readiness.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import type * as v from "../../src/services/views.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { Store } from "../../src/store/store.js";
import { createServerWarehouse } from "../../src/warehouse/clickhouse-server.js";
import type { Warehouse } from "../../src/warehouse/warehouse.js";
import { responseValidator, type OpenApiDocument } from "../e2e/openapi-validator.js";
import { testServices } from "../helpers/scan-service.js";
import { targets, type TestDatabase } from "../store/databases.js";
import { pino } from "pino";

const RW = "rw-key-0123456789abcdef";
const RO = "ro-key-0123456789abcdef";
const pglite = targets.find((t) => t.name === "pglite")!;

/** A new endpoint as another helper would add it: path parameter + JSON body, one service call. */
const feedbackInput = z.object({
  metric: metricName,
  rule: ruleId,
  measure: z.string().max(128),
  start: z.iso.datetime(),
  expected: z.literal(true),
});
const feedbackSchema = z.object({
  metric: z.string(),
  rule: z.string(),
  measure: z.string(),
  start: z.string(),
  expected: z.boolean(),
  table: z.string().nullable(),
});
const table = {
  ...endpoints,
  "anomalies.feedback": endpoint({
    method: "POST",
    path: "/v1/test/anomalies/:metric/feedback",
    auth: "write",
    summary: "Mark an anomaly as expected (test-only entry)",
    input: feedbackInput,
    body: true,
    output: feedbackSchema,
    success: { 200: "the feedback as taken" },
    errors: ["not_found"],
    call: async (s, input) => ({ ...input, table: (await s.compiler.irByName(input.metric)).table }),
  }),
} satisfies EndpointTable;
type TestRouter = ReturnType<typeof routerOf<typeof table>>;

let db: TestDatabase;
let store: Store;
let warehouse: Warehouse;
let server: Server;
let base: string;

beforeAll(async () => {
  const logger = pino({ level: "silent" });
  db = await pglite.fresh();
  store = await createStore({ ...db.options, logger });
  warehouse = createServerWarehouse({ name: "default", url: "http://127.0.0.1:1", timeoutSeconds: 5 });
  const snapshot = await loadCatalogSnapshot(DEMO_METRICS_DIR);
  const getSnapshot = () => snapshot;
  const { readModel, services, metrics } = testServices(store, warehouse, getSnapshot);
  await readModel.refresh({ force: true });
  const app = createHttpApp({
    services,
    auth: { keys: [RW], readonlyKeys: [RO] },
    metrics,
    readiness: createReadiness({ store, warehouses: new Map([["default", warehouse]]), isAccepting: () => true, isLoaded: () => true }),
    logger,
    endpoints: table,
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await store?.close();
  await warehouse?.close();
  await db?.drop();
});

const call = async (method: string, path: string, key?: string, body?: unknown) => {
  const headers: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: Object.fromEntries(res.headers), text, body: JSON.parse(text) };
};
/** A route no entry declares, as REST and tRPC answer it. */
const NO_ROUTE = /^no such endpoint/;
const NO_PROCEDURE = /No procedure found|procedure on path/i;
const samplePath = (path: string) => path.replace(/:[A-Za-z_]\w*/g, "x");

describe("the endpoint table", () => {
  it("names each endpoint namespace.procedure, once, with its path parameters in its input", () => {
    const routes = new Set<string>();
    for (const [name, e] of Object.entries(endpoints)) {
      expect(name, name).toMatch(/^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/);
      expect(e.path, name).toMatch(/^\/v1\//);
      for (const param of pathParams(e.path)) expect(Object.keys(e.input.shape), name).toContain(param);
      // POST is a write (read-write key, rate limit, the long deadline); GET a read.
      expect(e.auth, name).toBe(e.method === "POST" ? "write" : "read");
      if (!e.status) expect(Object.keys(e.success), name).toContain("200");
      routes.add(`${e.method} ${e.path}`);
    }
    expect(routes.size).toBe(Object.keys(endpoints).length);
  });

  it("types the tRPC router from the table, as @trpc/client sees it", () => {
    // Compile-time (tsc): procedure names, inputs (optional where {} is valid, none for noInput) and outputs.
    type In = inferRouterInputs<AppRouter>;
    type Out = inferRouterOutputs<AppRouter>;
    expectTypeOf<In["reliability"]["statusByName"]>().toEqualTypeOf<{ name: string }>();
    expectTypeOf<In["reliability"]["scan"]>().toEqualTypeOf<void | { wait?: boolean | "true" | "false" | undefined } | undefined>();
    expectTypeOf<In["semanticTests"]["run"]>().toEqualTypeOf<void>();
    expectTypeOf<Out["reliability"]["statusByName"]>().toEqualTypeOf<v.MetricStatusView>();
    expectTypeOf<Out["reliability"]["status"]>().toEqualTypeOf<v.StatusListingView>();
    expectTypeOf<Out["validation"]["tests"]>().toEqualTypeOf<v.TestListing>();
    expectTypeOf<Out["compiler"]["irByName"]>().toEqualTypeOf<MetricIR>();
    expectTypeOf<Out["semanticTests"]["run"]>().toEqualTypeOf<v.TestRunView>();
    expectTypeOf<keyof In>().toEqualTypeOf<"validation" | "semanticTests" | "compiler" | "reliability">();
    expectTypeOf<keyof In["reliability"]>().toEqualTypeOf<
      "status" | "statusByName" | "affectedBy" | "scan" | "scanById" | "anomalies" | "anomalyFeedback" | "incidents" | "incidentById"
    >();
    expectTypeOf<Out["reliability"]["anomalies"]>().toEqualTypeOf<v.AnomaliesView>();
    expectTypeOf<Out["reliability"]["anomalyFeedback"]>().toEqualTypeOf<v.AnomalyFeedbackView>();
    expectTypeOf<inferRouterInputs<TestRouter>["anomalies"]["feedback"]>().toEqualTypeOf<z.input<typeof feedbackInput>>();
  });

  it("serves every entry by REST and by tRPC, and documents both", async () => {
    // Controls: what a route or procedure outside the table answers.
    expect((await call("GET", "/v1/nope", RO)).body.error.message).toMatch(NO_ROUTE);
    expect((await call("GET", "/trpc/nope.nope", RO)).body.error.message).toMatch(NO_PROCEDURE);

    const doc = (await call("GET", "/v1/openapi.json")).body as { paths: Record<string, Record<string, { operationId: string }>> };
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([m, op]) => `${m} ${path} ${op.operationId}`),
    );
    const expected: string[] = [];
    for (const [name, e] of Object.entries(table)) {
      const method = e.method.toLowerCase();
      expected.push(`${method} ${openApiPath(e.path)} ${name}`, `${method} /trpc/${name} trpc.${name}`);

      const rest = await call(e.method, samplePath(e.path), RO);
      const trpc = await call(e.method, `/trpc/${name}`, RO);
      if (e.auth === "write") {
        // Only the entry's own route answers 403 to a read-only key (an unknown /v1 path is a 404).
        expect(rest, `${name} REST`).toMatchObject({ status: 403, body: { error: { code: "forbidden" } } });
        expect(trpc, `${name} tRPC`).toMatchObject({ status: 403, body: { error: { data: { appCode: "forbidden", path: name } } } });
      } else {
        expect(rest.body.error?.message ?? "", `${name} REST`).not.toMatch(NO_ROUTE);
        expect(trpc.body.error?.message ?? "", `${name} tRPC`).not.toMatch(NO_PROCEDURE);
        expect(trpc.status === 200 ? trpc.body.result : trpc.body.error.data.path, `${name} tRPC`).toBeTruthy();
      }
    }
    expect(documented.sort()).toEqual(expected.sort());
  });

  it("takes a new entry's input from the path and the JSON body (REST) or one object (tRPC)", async () => {
    const path = "/v1/test/anomalies/gross_revenue/feedback";
    const body = { rule: "anomaly_sum", measure: "revenue", start: "2026-11-25T00:00:00Z", expected: true };
    const answer = { metric: "gross_revenue", ...body, table: "shop.orders" };
    const rest = await call("POST", path, RW, body);
    expect(rest).toMatchObject({ status: 200, body: answer });
    // The path parameter wins over a body field of the same name; the query string is not read.
    expect((await call("POST", path, RW, { ...body, metric: "order_count" })).body).toEqual(answer);
    expect((await call("POST", `${path}?rule=anomaly_sum`, RW, { ...body, rule: undefined })).body).toEqual({
      error: { code: "bad_request", message: 'invalid parameter "rule": expected a string' },
    });
    expect((await call("POST", path, RW, [body])).body).toEqual({
      error: { code: "bad_request", message: "expected a JSON object as the request body" },
    });
    expect((await call("POST", "/v1/test/anomalies/no_such_metric/feedback", RW, body)).body).toEqual({
      error: { code: "not_found", message: 'metric "no_such_metric" not found' },
    });

    const t = createTRPCClient<TestRouter>({
      links: [httpLink({ url: `${base}/trpc`, headers: () => ({ Authorization: `Bearer ${RW}` }) })],
    });
    expect(await t.anomalies.feedback.mutate({ metric: "gross_revenue", ...body, expected: true })).toEqual(answer);

    // Documented as such (a valid OpenAPI 3.1 document), and the live answer matches it.
    const doc = buildOpenApiDocument("0.0.0", table);
    const result = await new Validator().validate(structuredClone(doc) as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    const op = doc.paths?.["/v1/test/anomalies/{metric}/feedback"]?.post;
    expect(op?.parameters).toEqual([expect.objectContaining({ in: "path", name: "metric", required: true })]);
    const schema = (op?.requestBody as { required: boolean; content: Record<string, { schema: { properties: object } }> }) ?? null;
    expect(schema.required).toBe(true);
    expect(Object.keys(schema.content["application/json"]!.schema.properties)).toEqual(["rule", "measure", "start", "expected"]);
    expect(Object.keys(op?.responses ?? {}).sort()).toEqual(["200", "400", "401", "403", "404", "429", "500", "503"]);
    responseValidator(doc as unknown as OpenApiDocument).validate("post", "/v1/test/anomalies/{metric}/feedback", {
      ...rest,
      text: rest.text,
    });
  });
});
