// Status codes of the real daemon: 401 for a missing or wrong key on every /v1 path and every
// tRPC procedure, 403 for read-only keys on writes, JSON 404s, and hostile input answered with
// 400/404 JSON, never a 500.
import { TRPCClientError } from "@trpc/client";
import { expect, it } from "vitest";
import type { AppRouter } from "../../src/api/trpc/router.js";
import { RO_KEY, RW_KEY, describeCombinations, useDaemon, type HttpResult } from "./daemon-harness.js";
import { promSample } from "./expected.js";

const WRONG_KEY = "e2e-wrong-key-0123456789abcdef";
const BAD_AUTHORIZATIONS: (string | undefined)[] = [
  undefined,
  "",
  `Bearer ${WRONG_KEY}`,
  `Bearer ${RW_KEY}x`,
  `Bearer ${RW_KEY.slice(0, -1)}`,
  RW_KEY,
  "Bearer",
  `Basic ${Buffer.from(`user:${RW_KEY}`).toString("base64")}`,
];

const UUID0 = "00000000-0000-4000-8000-000000000000";
const REST_ENDPOINTS: [method: string, path: string][] = [
  ["GET", "/v1/validation/tests"],
  ["POST", "/v1/semantic-tests/run"],
  ["GET", "/v1/compiler/ir"],
  ["GET", "/v1/compiler/status"],
  ["GET", "/v1/compiler/ir/gross_revenue"],
  ["GET", "/v1/reliability/status"],
  ["GET", "/v1/reliability/status/gross_revenue"],
  ["GET", "/v1/reliability/affected-by/shop.orders"],
  ["POST", "/v1/reliability/scan"],
  ["POST", "/v1/reliability/scan?wait=true"],
  ["GET", `/v1/reliability/scans/${UUID0}`],
  // paths that would be 404 or 400 with a key are 401 without one: nothing is probed anonymously
  ["GET", "/v1/no-such-endpoint"],
  ["GET", "/v1/compiler/ir/no_such_metric"],
  ["GET", "/v1/reliability/status/%27;DROP"],
];

type Procedure = [path: string, type: "query" | "mutation", input: unknown];
const PROCEDURES: Procedure[] = [
  ["validation.tests", "query", undefined],
  ["semanticTests.run", "mutation", undefined],
  ["compiler.ir", "query", undefined],
  ["compiler.status", "query", undefined],
  ["compiler.irByName", "query", { name: "gross_revenue" }],
  ["reliability.status", "query", undefined],
  ["reliability.statusByName", "query", { name: "gross_revenue" }],
  ["reliability.affectedBy", "query", { table: "shop.orders" }],
  ["reliability.scan", "mutation", { wait: true }],
  ["reliability.scanById", "query", { id: UUID0 }],
  // auth runs before input parsing
  ["compiler.irByName", "query", { name: "'; DROP TABLE x" }],
];

const HOSTILE_GETS = [
  "/v1/compiler/ir/%27;DROP",
  "/v1/compiler/ir/%27%3BDROP%20TABLE%20shop.orders%3B--",
  "/v1/compiler/ir/../../etc/passwd",
  "/v1/compiler/ir/..%2F..%2Fetc%2Fpasswd",
  "/v1/compiler/ir/%F0%9F%92%A5",
  `/v1/compiler/ir/${"a".repeat(5000)}`,
  "/v1/reliability/status/GROSS_REVENUE",
  "/v1/reliability/status/%00",
  "/v1/reliability/status/%E0%A4%A",
  `/v1/reliability/status/${"b".repeat(129)}`,
  "/v1/reliability/affected-by/%27;DROP",
  "/v1/reliability/affected-by/shop.orders%20OR%201=1",
  "/v1/reliability/affected-by/..%2F..%2Fetc",
  "/v1/reliability/affected-by/a.b.c",
  `/v1/reliability/affected-by/${"t".repeat(5000)}`,
  "/v1/reliability/scans/%27;DROP",
  "/v1/reliability/scans/../../etc",
  `/v1/reliability/scans/${"f".repeat(5000)}`,
];

const query = (input: unknown) => (input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`);

function expectUnauthorized(res: HttpResult, what: string): void {
  expect(res.status, what).toBe(401);
  expect(res.headers["www-authenticate"], what).toBe("Bearer");
  expect(res.headers["content-type"], what).toMatch(/^application\/json/);
  expect(res.text).not.toContain(WRONG_KEY);
  expect(res.text).not.toContain(RW_KEY);
}

async function clientError(call: () => Promise<unknown>) {
  const e = (await call().then(
    () => null,
    (x: unknown) => x,
  )) as TRPCClientError<AppRouter>;
  expect(e).toBeInstanceOf(TRPCClientError);
  return { appCode: e.data?.appCode, httpStatus: e.data?.httpStatus };
}

describeCombinations("auth and status codes", (combination) => {
  // Dozens of wrong keys on purpose, to see every 401: the wrong-key throttle (which would answer
  // 429 after 10) is off here and tested in http-limits.e2e.test.ts.
  const session = useDaemon(combination, { AUTH_FAILURE_LIMIT: "0" });

  it("REST: 401 JSON with WWW-Authenticate: Bearer for a missing or wrong key on every /v1 path", async () => {
    const { d } = session();
    for (const [method, path] of REST_ENDPOINTS) {
      for (const authorization of BAD_AUTHORIZATIONS) {
        const res = await d.request(method, path, authorization === undefined ? {} : { authorization });
        expectUnauthorized(res, `${method} ${path} with ${authorization}`);
        expect(res.body).toEqual({ error: { code: "unauthorized", message: expect.any(String) } });
      }
    }
    expect((await d.request("GET", "/v1/reliability/status")).body.error.message).toBe(
      "missing bearer token: send Authorization: Bearer <API key>",
    );
    expect((await d.request("GET", "/v1/reliability/status", { authorization: `Bearer ${WRONG_KEY}` })).body.error.message).toBe(
      "invalid API key",
    );
  });

  it("tRPC: 401 with WWW-Authenticate: Bearer for a missing or wrong key on every procedure", async () => {
    const { d } = session();
    for (const [path, type, input] of PROCEDURES) {
      for (const authorization of BAD_AUTHORIZATIONS) {
        const options = authorization === undefined ? {} : { authorization };
        const res =
          type === "query"
            ? await d.request("GET", `/trpc/${path}${query(input)}`, options)
            : await d.request("POST", `/trpc/${path}`, {
                ...options,
                headers: { "content-type": "application/json" },
                body: JSON.stringify(input ?? {}),
              });
        expectUnauthorized(res, `${path} with ${authorization}`);
        expect(res.body.error).toMatchObject({
          message: expect.any(String),
          data: { code: "UNAUTHORIZED", httpStatus: 401, appCode: "unauthorized", path },
        });
        expect(res.body.error.data.stack).toBeUndefined();
      }
    }
    for (const key of [undefined, WRONG_KEY]) {
      const t = d.trpc(key, "single");
      const calls = [
        () => t.validation.tests.query(),
        () => t.semanticTests.run.mutate(),
        () => t.compiler.ir.query(),
        () => t.compiler.status.query(),
        () => t.compiler.irByName.query({ name: "gross_revenue" }),
        () => t.reliability.status.query(),
        () => t.reliability.statusByName.query({ name: "gross_revenue" }),
        () => t.reliability.affectedBy.query({ table: "shop.orders" }),
        () => t.reliability.scan.mutate({ wait: true }),
        () => t.reliability.scanById.query({ id: UUID0 }),
      ];
      for (const call of calls) expect(await clientError(call)).toEqual({ appCode: "unauthorized", httpStatus: 401 });
    }
    const batch = await d.request("GET", `/trpc/reliability.status,validation.tests?batch=1&input=${encodeURIComponent("{}")}`);
    expectUnauthorized(batch, "batch");
  });

  it("read-only key: 403 on both POSTs and both mutations, 200 on every read; nothing ran", async () => {
    const { d } = session();
    const forbidden = { error: { code: "forbidden", message: "this API key is read-only" } };
    for (const path of ["/v1/semantic-tests/run", "/v1/reliability/scan", "/v1/reliability/scan?wait=true"]) {
      const res = await d.request("POST", path, { key: RO_KEY });
      expect([res.status, res.body], path).toEqual([403, forbidden]);
      expect(res.headers["www-authenticate"]).toBeUndefined();
    }
    const t = d.trpc(RO_KEY, "single");
    for (const call of [
      () => t.semanticTests.run.mutate(),
      () => t.reliability.scan.mutate(),
      () => t.reliability.scan.mutate({ wait: true }),
    ]) {
      expect(await clientError(call)).toEqual({ appCode: "forbidden", httpStatus: 403 });
    }
    for (const [method, path] of REST_ENDPOINTS.slice(0, 11)) {
      if (method === "GET" && !path.includes(UUID0)) expect((await d.request("GET", path, { key: RO_KEY })).status, path).toBe(200);
    }
    // No scan is running (the next trigger starts one) and no run ever happened.
    const started = await d.request("POST", "/v1/reliability/scan?wait=true", { key: RW_KEY });
    expect(started.body).toMatchObject({ coalesced: false, trigger: "manual", status: "succeeded" });
    const text = (await d.request("GET", "/metrics")).text;
    expect(promSample(text, "metric_reliability_scans_total", { trigger: "manual", outcome: "succeeded" })).toBe(1);
    expect(promSample(text, "metric_reliability_scans_total", { trigger: "api_run", outcome: "succeeded" })).toBe(0);
  });

  it("open endpoints need no key and ignore a wrong one", async () => {
    const { d } = session();
    for (const authorization of [undefined, `Bearer ${WRONG_KEY}`]) {
      const options = authorization ? { authorization } : {};
      expect((await d.request("GET", "/healthz", options)).status).toBe(200);
      expect((await d.request("GET", "/readyz", options)).status).toBe(200);
      expect((await d.request("GET", "/metrics", options)).status).toBe(200);
    }
  });

  it("JSON 404 for unknown routes, metrics and scans; affected-by of an unknown table is 200 with count 0", async () => {
    const { d } = session();
    const notFound = (message: string | RegExp) => ({
      error: { code: "not_found", message: typeof message === "string" ? message : expect.stringMatching(message) },
    });
    expect(await d.request("GET", "/nope")).toMatchObject({ status: 404, body: notFound("no such endpoint: GET /nope") });
    expect(await d.request("GET", "/v1/nope", { key: RW_KEY })).toMatchObject({
      status: 404,
      body: notFound("no such endpoint: GET /v1/nope"),
    });
    expect(await d.request("DELETE", "/v1/reliability/status", { key: RW_KEY })).toMatchObject({ status: 404, body: notFound(/DELETE/) });
    expect(await d.request("GET", "/v1/reliability/scan", { key: RW_KEY })).toMatchObject({ status: 404, body: notFound(/GET/) });
    expect(await d.request("POST", "/v1/reliability/status", { key: RW_KEY })).toMatchObject({ status: 404, body: notFound(/POST/) });
    expect(await d.request("GET", "/v1/compiler/ir/no_such_metric", { key: RW_KEY })).toMatchObject({
      status: 404,
      body: notFound('metric "no_such_metric" not found'),
    });
    expect(await d.request("GET", "/v1/reliability/status/no_such_metric", { key: RO_KEY })).toMatchObject({
      status: 404,
      body: notFound('metric "no_such_metric" not found'),
    });
    expect(await d.request("GET", `/v1/reliability/scans/${UUID0}`, { key: RW_KEY })).toMatchObject({
      status: 404,
      body: notFound(`scan "${UUID0}" not found`),
    });
    const none = await d.request("GET", "/v1/reliability/affected-by/shop.no_such_table", { key: RW_KEY });
    expect([none.status, none.body]).toEqual([200, { table: "shop.no_such_table", affected_metrics: [], count: 0 }]);
    const trpc = await d.request("GET", "/trpc/no.such.procedure", { key: RW_KEY });
    expect(trpc.status).toBe(404);
    expect(trpc.body.error.data).toMatchObject({ code: "NOT_FOUND", appCode: "not_found" });
  });

  it("hostile path parameters, queries and bodies get 400 or 404 JSON, never 500", async () => {
    const { d } = session();
    const results: [string, HttpResult, "rest" | "trpc"][] = [];
    for (const path of HOSTILE_GETS) results.push([path, await d.request("GET", path, { key: RW_KEY }), "rest"]);
    for (const path of [
      "/v1/reliability/scan?wait=%27;DROP",
      "/v1/reliability/scan?wait=true&wait=false",
      `/v1/reliability/scan?wait=${"x".repeat(5000)}`,
    ]) {
      results.push([path, await d.request("POST", path, { key: RW_KEY }), "rest"]);
    }
    const json = { "content-type": "application/json" };
    results.push([
      "malformed JSON",
      await d.request("POST", "/v1/reliability/scan", { key: RW_KEY, headers: json, body: "{nope" }),
      "rest",
    ]);
    results.push([
      "large body",
      await d.request("POST", "/v1/semantic-tests/run", { key: RW_KEY, headers: json, body: JSON.stringify({ x: "y".repeat(100_000) }) }),
      "rest",
    ]);
    const inputs: [string, unknown][] = [
      ["compiler.irByName", { name: "'; DROP TABLE shop.orders; --" }],
      ["compiler.irByName", { name: 5 }],
      ["compiler.irByName", undefined],
      ["reliability.statusByName", { name: "x".repeat(5000) }],
      ["reliability.affectedBy", { table: "shop.orders; DROP" }],
      ["reliability.scanById", { id: "../../etc" }],
    ];
    for (const [path, input] of inputs)
      results.push([`${path} ${JSON.stringify(input)}`, await d.request("GET", `/trpc/${path}${query(input)}`, { key: RW_KEY }), "trpc"]);
    results.push(["tRPC malformed input", await d.request("GET", "/trpc/compiler.irByName?input=%7Bnope", { key: RW_KEY }), "trpc"]);

    for (const [what, res, transport] of results) {
      expect([400, 404], `${what}: ${res.status} ${res.text.slice(0, 200)}`).toContain(res.status);
      expect(res.headers["content-type"], what).toMatch(/^application\/json/);
      const code = transport === "rest" ? res.body?.error?.code : res.body?.error?.data?.appCode;
      expect(["bad_request", "not_found"], what).toContain(code);
      if (transport === "rest") expect(res.body, what).toEqual({ error: { code, message: expect.any(String) } });
      expect(res.text, what).not.toMatch(/stack|at [\w.]+ \(|node_modules/);
    }
    expect(results.find(([w]) => w === "malformed JSON")![1].body).toEqual({
      error: { code: "bad_request", message: "malformed JSON body" },
    });
    expect(results.find(([w]) => w === "large body")![1].body).toEqual({
      error: { code: "bad_request", message: "request body too large (limit 16384 bytes)" },
    });
    // The hostile values never reached the Prometheus labels (route patterns only).
    const text = (await d.request("GET", "/metrics")).text;
    expect(text).toContain('route="/v1/compiler/ir/:name"');
    expect(text).toContain('route="/trpc"');
    expect(text).not.toMatch(/DROP|passwd|aaaa|no_such_metric/);
    expect(promSample(text, "metric_reliability_scans_total", { trigger: "manual", outcome: "succeeded" })).toBe(1);
  });

  it("logged no warning or error", () => {
    expect(session().d.logs).toEqual([]);
  });
});
