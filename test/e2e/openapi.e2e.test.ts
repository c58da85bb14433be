// GET /v1/openapi.json describes the live API: every endpoint's real responses (successes and
// errors) on the real daemon are validated against the served document with a standard JSON
// Schema 2020-12 validator (ajv), and every documented operation is exercised.
import { randomUUID } from "node:crypto";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { beforeAll, expect, it } from "vitest";
import { RO_KEY, RW_KEY, describeCombinations, useDaemon, type HttpResult } from "./daemon-harness.js";
import { METRICS } from "./expected.js";

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Method = "get" | "post";
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Partial<Record<Method, { responses: Record<string, { content?: Record<string, { schema?: unknown }>; headers?: Record<string, unknown> }> }>>>;
}

describeCombinations("OpenAPI document against live responses", (combination) => {
  const session = useDaemon(combination);
  let doc: OpenApiDocument;
  let ajv: InstanceType<typeof Ajv2020>;
  /** "get /v1/..." -> statuses validated */
  const exercised = new Map<string, Set<number>>();

  beforeAll(async () => {
    const res = await session().d.request("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    doc = res.body;
    // strict: false because the document is OpenAPI, not only JSON Schema (paths, info, ...);
    // every schema inside it is still compiled and applied in full.
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, "openapi.json");
  });

  /** Sends the request, then validates status and body against the operation's documented response. */
  async function check(method: Method, template: string, path: string, options: { key?: string; expect: number }): Promise<HttpResult> {
    const res = await session().d.request(method.toUpperCase(), path, { key: options.key });
    expect(res.status, `${method} ${path}: ${res.text}`).toBe(options.expect);
    const operation = doc.paths[template]?.[method];
    expect(operation, `${method} ${template} is documented`).toBeDefined();
    const response = operation!.responses[String(res.status)];
    expect(response, `${method} ${template} documents ${res.status}`).toBeDefined();
    const pointer = ["#", "paths", template, method, "responses", String(res.status), "content", "application/json", "schema"]
      .map((p, i) => (i === 0 ? p : p.replace(/~/g, "~0").replace(/\//g, "~1")))
      .join("/");
    const validate = ajv.getSchema(`openapi.json${pointer}`);
    expect(validate, `schema at ${pointer}`).toBeDefined();
    if (!validate!(res.body)) throw new Error(`${method} ${path} (${res.status}) does not match the document: ${ajv.errorsText(validate!.errors)}\n${res.text.slice(0, 500)}`);
    for (const header of Object.keys(response!.headers ?? {})) expect(res.headers[header.toLowerCase()], `${header} on ${res.status}`).toBeDefined();
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
    for (const metric of METRICS) {
      await check("get", "/v1/compiler/ir/{name}", `/v1/compiler/ir/${metric}`, { key: RO_KEY, expect: 200 });
      await check("get", "/v1/reliability/status/{name}", `/v1/reliability/status/${metric}`, { key: RO_KEY, expect: 200 });
    }
    for (const table of ["shop.orders", "customers", "shop.nothing_reads_this"]) {
      await check("get", "/v1/reliability/affected-by/{table}", `/v1/reliability/affected-by/${table}`, { key: RO_KEY, expect: 200 });
    }
  });

  it("validates the POST endpoints and the scan they leave", async () => {
    const started = await check("post", "/v1/reliability/scan", "/v1/reliability/scan", { key: RW_KEY, expect: 202 });
    const finished = await check("post", "/v1/reliability/scan", "/v1/reliability/scan?wait=true", { key: RW_KEY, expect: 200 });
    for (const id of [started.body.scan_id, finished.body.scan_id]) {
      await check("get", "/v1/reliability/scans/{id}", `/v1/reliability/scans/${id}`, { key: RO_KEY, expect: 200 });
    }
    await check("post", "/v1/semantic-tests/run", "/v1/semantic-tests/run", { key: RW_KEY, expect: 200 });
  });

  it("validates the error responses", async () => {
    await check("get", "/v1/validation/tests", "/v1/validation/tests", { expect: 401 });
    await check("get", "/v1/reliability/status/{name}", "/v1/reliability/status/gross_revenue", { key: "wrong-key-0123456789abcdef", expect: 401 });
    await check("get", "/v1/compiler/ir/{name}", "/v1/compiler/ir/no_such_metric", { key: RO_KEY, expect: 404 });
    await check("get", "/v1/reliability/status/{name}", "/v1/reliability/status/Not-A-Name", { key: RO_KEY, expect: 400 });
    await check("get", "/v1/reliability/scans/{id}", `/v1/reliability/scans/${randomUUID()}`, { key: RO_KEY, expect: 404 });
    await check("get", "/v1/reliability/scans/{id}", "/v1/reliability/scans/not-a-uuid", { key: RO_KEY, expect: 400 });
    await check("post", "/v1/reliability/scan", "/v1/reliability/scan", { key: RO_KEY, expect: 403 });
    await check("post", "/v1/reliability/scan", "/v1/reliability/scan?wait=maybe", { key: RW_KEY, expect: 400 });
    await check("post", "/v1/semantic-tests/run", "/v1/semantic-tests/run", { key: RO_KEY, expect: 403 });
  });

  it("had every documented operation answer 2xx above", () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
    const untested = documented.filter((op) => op !== "get /v1/openapi.json" && ![...(exercised.get(op) ?? [])].some((s) => s < 300));
    expect(untested).toEqual([]);
  });
});
