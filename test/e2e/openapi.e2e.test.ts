// GET /v1/openapi.json describes the live API: every endpoint's real responses (successes and
// errors), REST and tRPC, on the real daemon are validated against the served document with a
// standard JSON Schema 2020-12 validator (ajv), and every documented operation is exercised.
import { randomUUID } from "node:crypto";
import { beforeAll, expect, it } from "vitest";
import { RO_KEY, RW_KEY, describeCombinations, useDaemon, type HttpResult } from "./daemon-harness.js";
import { METRICS } from "./expected.js";
import { responseValidator, type Method, type OpenApiDocument, type ResponseValidator } from "./openapi-validator.js";

describeCombinations("OpenAPI document against live responses", (combination) => {
  const session = useDaemon(combination);
  let doc: OpenApiDocument;
  let validator: ResponseValidator;
  /** "get /v1/..." -> statuses validated */
  const exercised = new Map<string, Set<number>>();

  beforeAll(async () => {
    const res = await session().d.request("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    doc = res.body;
    validator = responseValidator(doc);
  });

  /** Sends the request, then validates status and body against the operation's documented response. */
  async function check(
    method: Method,
    template: string,
    path: string,
    options: { key?: string; expect: number; json?: unknown },
  ): Promise<HttpResult> {
    const body = options.json === undefined ? undefined : JSON.stringify(options.json);
    const res = await session().d.request(method.toUpperCase(), path, {
      key: options.key,
      ...(body === undefined ? {} : { body, headers: { "content-type": "application/json" } }),
    });
    expect(res.status, `${method} ${path}: ${res.text}`).toBe(options.expect);
    validator.validate(method, template, res);
    const key = `${method} ${template}`;
    exercised.set(key, (exercised.get(key) ?? new Set()).add(res.status));
    return res;
  }

  it("is served without a key and is OpenAPI 3.1", async () => {
    const res = await session().d.request("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: "http", scheme: "bearer" }));
  });

  it("validates every read endpoint's responses", async () => {
    await check("get", "/v1/validation/tests", "/v1/validation/tests", { key: RO_KEY, expect: 200 });
    await check("get", "/v1/compiler/ir", "/v1/compiler/ir", { key: RO_KEY, expect: 200 });
    await check("get", "/v1/compiler/status", "/v1/compiler/status", { key: RO_KEY, expect: 200 });
    await check("get", "/v1/reliability/status", "/v1/reliability/status", { key: RO_KEY, expect: 200 });
    // Pages and filters: next_cursor is a string until the last page, then null.
    const page = await check("get", "/v1/validation/tests", "/v1/validation/tests?limit=5&metric=gross_revenue", {
      key: RO_KEY,
      expect: 200,
    });
    expect(page.body.tests).toHaveLength(5);
    expect(typeof page.body.next_cursor).toBe("string");
    const last = await check(
      "get",
      "/v1/validation/tests",
      `/v1/validation/tests?limit=10000&cursor=${page.body.next_cursor}&metric=gross_revenue`,
      { key: RO_KEY, expect: 200 },
    );
    expect(last.body.next_cursor).toBeNull();
    await check("get", "/v1/reliability/status", "/v1/reliability/status?limit=2&status=unreliable", { key: RO_KEY, expect: 200 });
    await check("get", "/v1/compiler/ir", "/v1/compiler/ir?limit=3&table=shop.orders", { key: RO_KEY, expect: 200 });
    await check("get", "/v1/reliability/status", "/v1/reliability/status?limit=0", { key: RO_KEY, expect: 400 });
    for (const metric of METRICS) {
      await check("get", "/v1/compiler/ir/{name}", `/v1/compiler/ir/${metric}`, { key: RO_KEY, expect: 200 });
      await check("get", "/v1/reliability/status/{name}", `/v1/reliability/status/${metric}`, { key: RO_KEY, expect: 200 });
    }
    for (const table of ["shop.orders", "customers", "shop.nothing_reads_this"]) {
      await check("get", "/v1/reliability/affected-by/{table}", `/v1/reliability/affected-by/${table}`, { key: RO_KEY, expect: 200 });
    }
    for (const metric of ["deliveries_shipped", "seller_payouts", "revenue_per_order", "average_product_price"])
      await check("get", "/v1/reliability/anomalies/{metric}", `/v1/reliability/anomalies/${metric}`, { key: RO_KEY, expect: 200 });
    // Incidents: the demo's broken tables each have one open.
    const incidents = await check("get", "/v1/reliability/incidents", "/v1/reliability/incidents", { key: RO_KEY, expect: 200 });
    expect(incidents.body.count).toBeGreaterThan(0);
    const first = await check("get", "/v1/reliability/incidents", "/v1/reliability/incidents?state=open&limit=1", {
      key: RO_KEY,
      expect: 200,
    });
    if (incidents.body.count > 1) expect(typeof first.body.next_cursor).toBe("string");
    for (const { id } of incidents.body.incidents as { id: string }[])
      await check("get", "/v1/reliability/incidents/{id}", `/v1/reliability/incidents/${id}`, { key: RO_KEY, expect: 200 });
    await check("get", "/v1/reliability/incidents/{id}", `/v1/reliability/incidents/${randomUUID()}`, { key: RO_KEY, expect: 404 });
    await check("get", "/v1/reliability/incidents/{id}", "/v1/reliability/incidents/not-a-uuid", { key: RO_KEY, expect: 400 });
    await check("get", "/v1/reliability/incidents", "/v1/reliability/incidents?state=closed", { key: RO_KEY, expect: 400 });
  });

  it("validates the POST endpoints and the scan they leave", async () => {
    const started = await check("post", "/v1/reliability/scan", "/v1/reliability/scan", { key: RW_KEY, expect: 202 });
    const finished = await check("post", "/v1/reliability/scan", "/v1/reliability/scan?wait=true", { key: RW_KEY, expect: 200 });
    for (const id of [started.body.scan_id, finished.body.scan_id]) {
      await check("get", "/v1/reliability/scans/{id}", `/v1/reliability/scans/${id}`, { key: RO_KEY, expect: 200 });
    }
    await check("post", "/v1/semantic-tests/run", "/v1/semantic-tests/run", { key: RW_KEY, expect: 200 });
    // Feedback on the planted volume drop (the flagged bucket, read from the series).
    const volume = await check("get", "/v1/reliability/anomalies/{metric}", "/v1/reliability/anomalies/deliveries_shipped", {
      key: RO_KEY,
      expect: 200,
    });
    const flagged = volume.body.series[0].buckets.find((b: { anomalous: boolean }) => b.anomalous);
    const feedback = { rule: "volume_anomaly", measure: "rows", start: flagged.start, expected: true };
    await check("post", "/v1/reliability/anomalies/{metric}/feedback", "/v1/reliability/anomalies/deliveries_shipped/feedback", {
      key: RW_KEY,
      expect: 200,
      json: feedback,
    });
    await check("post", "/v1/reliability/anomalies/{metric}/feedback", "/v1/reliability/anomalies/deliveries_shipped/feedback", {
      key: RW_KEY,
      expect: 400,
      json: { ...feedback, start: "2000-01-01T00:00:00.000Z" },
    });
    await check("post", "/v1/reliability/anomalies/{metric}/feedback", "/v1/reliability/anomalies/no_such_metric/feedback", {
      key: RW_KEY,
      expect: 404,
      json: feedback,
    });
    await check("post", "/v1/reliability/anomalies/{metric}/feedback", "/v1/reliability/anomalies/deliveries_shipped/feedback", {
      key: RO_KEY,
      expect: 403,
      json: feedback,
    });
  });

  it("validates the error responses", async () => {
    await check("get", "/v1/validation/tests", "/v1/validation/tests", { expect: 401 });
    await check("get", "/v1/reliability/status/{name}", "/v1/reliability/status/gross_revenue", {
      key: "wrong-key-0123456789abcdef",
      expect: 401,
    });
    await check("get", "/v1/compiler/ir/{name}", "/v1/compiler/ir/no_such_metric", { key: RO_KEY, expect: 404 });
    await check("get", "/v1/reliability/anomalies/{metric}", "/v1/reliability/anomalies/no_such_metric", { key: RO_KEY, expect: 404 });
    await check("get", "/v1/reliability/anomalies/{metric}", "/v1/reliability/anomalies/Not-A-Name", { key: RO_KEY, expect: 400 });
    await check("get", "/v1/reliability/status/{name}", "/v1/reliability/status/Not-A-Name", { key: RO_KEY, expect: 400 });
    await check("get", "/v1/reliability/scans/{id}", `/v1/reliability/scans/${randomUUID()}`, { key: RO_KEY, expect: 404 });
    await check("get", "/v1/reliability/scans/{id}", "/v1/reliability/scans/not-a-uuid", { key: RO_KEY, expect: 400 });
    await check("post", "/v1/reliability/scan", "/v1/reliability/scan", { key: RO_KEY, expect: 403 });
    await check("post", "/v1/reliability/scan", "/v1/reliability/scan?wait=maybe", { key: RW_KEY, expect: 400 });
    await check("post", "/v1/semantic-tests/run", "/v1/semantic-tests/run", { key: RO_KEY, expect: 403 });
  });

  it("validates every tRPC procedure's responses (single calls), successes and errors", async () => {
    const query = (name: string, input?: unknown) =>
      `/trpc/${name}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`}`;
    const get = (name: string, input: unknown, key: string | undefined, expect: number) =>
      check("get", `/trpc/${name}`, query(name, input), { key, expect });
    for (const name of ["validation.tests", "compiler.ir", "compiler.status", "reliability.status"])
      await get(name, undefined, RO_KEY, 200);
    await get("reliability.status", { limit: 2, status: "unreliable" }, RO_KEY, 200);
    const one = await get("compiler.irByName", { name: "gross_revenue" }, RO_KEY, 200);
    expect(one.body.result.data.name).toBe("gross_revenue");
    await get("reliability.statusByName", { name: "gross_revenue" }, RO_KEY, 200);
    await get("reliability.affectedBy", { table: "shop.orders" }, RO_KEY, 200);
    const incidents = await get("reliability.incidents", { state: "open" }, RO_KEY, 200);
    await get("reliability.incidentById", { id: incidents.body.result.data.incidents[0].id }, RO_KEY, 200);
    await get("reliability.incidentById", { id: randomUUID() }, RO_KEY, 404);
    const payouts = await get("reliability.anomalies", { metric: "seller_payouts" }, RO_KEY, 200);
    await get("reliability.anomalies", { metric: "no_such_metric" }, RO_KEY, 404);
    const spike = payouts.body.result.data.series[1].buckets.find((b: { anomalous: boolean }) => b.anomalous);
    const mark = { metric: "seller_payouts", rule: "metric_value_anomaly", measure: "paid_out", start: spike.start, expected: true };
    await check("post", "/trpc/reliability.anomalyFeedback", "/trpc/reliability.anomalyFeedback", { key: RW_KEY, expect: 200, json: mark });
    await check("post", "/trpc/reliability.anomalyFeedback", "/trpc/reliability.anomalyFeedback", {
      key: RW_KEY,
      expect: 400,
      json: { ...mark, measure: "nope" },
    });

    const scan = await check("post", "/trpc/reliability.scan", "/trpc/reliability.scan", {
      key: RW_KEY,
      expect: 200,
      json: { wait: true },
    });
    expect(scan.body.result.data.status).toBe("succeeded");
    await get("reliability.scanById", { id: scan.body.result.data.scan_id }, RO_KEY, 200);
    await check("post", "/trpc/semanticTests.run", "/trpc/semanticTests.run", { key: RW_KEY, expect: 200 });

    await get("reliability.statusByName", { name: "no_such_metric" }, RO_KEY, 404);
    await get("reliability.statusByName", { name: "Not-A-Name" }, RO_KEY, 400);
    await get("reliability.status", undefined, undefined, 401);
    await check("post", "/trpc/reliability.scan", "/trpc/reliability.scan", { key: RO_KEY, expect: 403 });
  });

  it("had every documented operation answer 2xx above", () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
    const untested = documented.filter((op) => op !== "get /v1/openapi.json" && ![...(exercised.get(op) ?? [])].some((s) => s < 300));
    expect(untested).toEqual([]);
  });
});
