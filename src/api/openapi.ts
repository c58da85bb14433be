// The OpenAPI 3.1 document of /v1 and /trpc, served at GET /v1/openapi.json. Generated from the
// endpoint table (endpoints.ts): per entry, the REST operation and the tRPC procedure's operation
// (under /trpc/{procedure}), from the zod schemas the transports parse with and the response
// schemas the services' views are held to. Nothing here is a hand-written JSON Schema, and
// `npm run lint:openapi` (Redocly's recommended rules) passes with no warning.
import { readFileSync } from "node:fs";
import { z } from "zod";
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
} from "zod-openapi";
import {
  inputIsOptional,
  openApiPath,
  pathParams,
  takesNoInput,
  type AnyEndpoint,
  type EndpointError,
  type EndpointTable,
} from "./endpoint.js";
import { endpoints } from "./endpoints.js";
import { errorBodySchema, trpcErrorSchema } from "./response-schemas.js";

export const OPENAPI_PATH = "/v1/openapi.json";

const json = (schema: z.ZodType) => ({ "application/json": { schema } });

const retryAfter = z.object({ "Retry-After": z.string().meta({ description: "seconds to wait before retrying" }) });
const wwwAuthenticate = z.object({ "WWW-Authenticate": z.literal("Bearer") });
/** Reads (scan-pinning.ts): which scan the answer reflects, and asking for at least one. */
const scanIdHeader = z.object({
  "X-Scan-Id": z
    .string()
    .meta({ description: "the scan the answer reflects (the newest succeeded scan of the replica's view); `none` before the first" }),
});
const minScanHeader = z.object({
  "X-Min-Scan": z.string().optional().meta({
    description:
      "answer from this scan or a newer one (also `?min_scan=`): a replica that has not applied it refreshes first, else answers 503 with Retry-After; 404 for an unknown scan",
  }),
});

interface ErrorStatus {
  status: `${4 | 5}${string}`;
  description: string;
  headers?: z.ZodObject;
}
/** What every authenticated operation can answer. */
const COMMON_ERRORS: ErrorStatus[] = [
  {
    status: "400",
    description: "bad_request: a parameter of the wrong form (the message names it), or an answer over MAX_ANSWER_BYTES (ask for pages)",
  },
  { status: "401", description: "unauthorized: missing or unknown key", headers: wwwAuthenticate },
  {
    status: "429",
    description: "rate_limited: too many wrong keys from this client (AUTH_FAILURE_LIMIT), or, for writes, too many writes with this key",
    headers: retryAfter,
  },
  { status: "500", description: "internal: a bug (no stack trace in the body)" },
  { status: "503", description: "unavailable: the store or the warehouse is down, or the request timed out" },
];
const WRITE_ERRORS: ErrorStatus[] = [{ status: "403", description: "forbidden: a read-only key" }];
const EXTRA_ERRORS: Record<EndpointError, ErrorStatus> = {
  not_found: { status: "404", description: "not_found: the message names what is missing" },
  conflict: { status: "409", description: "conflict: the message says with what" },
};

function errorResponses(e: AnyEndpoint, body: z.ZodType): ZodOpenApiResponsesObject {
  const statuses = [...(e.errors ?? []).map((code) => EXTRA_ERRORS[code]), ...COMMON_ERRORS, ...(e.auth === "write" ? WRITE_ERRORS : [])];
  const responses: ZodOpenApiResponsesObject = {};
  for (const { status, description, headers } of statuses) {
    const response: ZodOpenApiResponseObject = { description, content: json(body) };
    if (headers) response.headers = headers;
    responses[status] = response;
  }
  return responses;
}

/** REST: the path parameters in the path, the rest in the query string or the JSON body. */
function restOperation(name: string, e: AnyEndpoint): ZodOpenApiOperationObject {
  const params = pathParams(e.path);
  const fields = (inPath: boolean) =>
    z.object(Object.fromEntries(Object.entries(e.input.shape).filter(([k]) => params.includes(k) === inPath)));
  const rest = params.length > 0 ? fields(false) : e.input;
  const hasRest = Object.keys(rest.shape).length > 0;
  const read = e.method === "GET";
  const requestParams = {
    ...(params.length > 0 ? { path: fields(true) } : {}),
    ...(hasRest && !e.body ? { query: rest } : {}),
    ...(read ? { header: minScanHeader } : {}),
  };
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, description] of Object.entries(e.success))
    responses[status as "200"] = { description, content: json(e.output), ...(read ? { headers: scanIdHeader } : {}) };
  return {
    operationId: name,
    summary: e.summary,
    tags: ["REST"],
    ...(Object.keys(requestParams).length > 0 ? { requestParams } : {}),
    ...(hasRest && e.body ? { requestBody: { required: !rest.safeParse({}).success, content: json(rest) } } : {}),
    responses: { ...responses, ...errorResponses(e, errorBodySchema) },
  };
}

/** tRPC (single calls): a query is a GET with ?input=<JSON>, a mutation a POST of the JSON input; the answer is { result: { data } }. */
function trpcOperation(name: string, e: AnyEndpoint): ZodOpenApiOperationObject {
  const input = takesNoInput(e) ? null : inputIsOptional(e) ? e.input.optional() : e.input;
  const query = e.method === "GET";
  return {
    operationId: `trpc.${name}`,
    summary: e.summary,
    description: `tRPC ${query ? "query" : "mutation"} \`${name}\`: same input, output and auth as ${e.method} ${openApiPath(e.path)}.`,
    tags: ["tRPC"],
    ...(input && query ? { requestParams: { query: z.object({ input }) } } : {}),
    ...(input && !query ? { requestBody: { required: !inputIsOptional(e), content: json(input) } } : {}),
    responses: {
      "200": {
        description: Object.values(e.success).join("; "),
        content: json(z.object({ result: z.object({ data: e.output }) })),
      },
      ...errorResponses(e, trpcErrorSchema),
    },
  };
}

interface PackageJson {
  version: string;
  license?: string;
}

/** package.json (src/api and dist/api are both two levels below it). */
function packageJson(): PackageJson {
  return JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as PackageJson;
}

export function packageVersion(): string {
  return packageJson().version;
}

type Document = ReturnType<typeof createDocument>;

/**
 * tRPC reads a query's input from one URL parameter holding JSON: OpenAPI says so with `content`
 * rather than `schema` (zod-openapi writes every parameter with `schema`).
 */
function jsonEncodedInputs(doc: Document): Document {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!path.startsWith("/trpc/")) continue;
    for (const parameter of item.get?.parameters ?? []) {
      if ("$ref" in parameter || parameter.name !== "input" || !parameter.schema) continue;
      parameter.content = { "application/json": { schema: parameter.schema } };
      parameter.description = "the procedure's input as JSON (URL-encoded)";
      delete parameter.schema;
    }
  }
  return doc;
}

export function buildOpenApiDocument(version: string = packageVersion(), table: EndpointTable = endpoints): Document {
  const license = packageJson().license;
  const paths: ZodOpenApiPathsObject = {};
  const entries = Object.entries(table);
  for (const [name, e] of entries) {
    const item = (paths[openApiPath(e.path)] ??= {});
    item[e.method === "GET" ? "get" : "post"] = restOperation(name, e);
  }
  for (const [name, e] of entries) paths[`/trpc/${name}`] = { [e.method === "GET" ? "get" : "post"]: trpcOperation(name, e) };
  return jsonEncodedInputs(
    createDocument({
      openapi: "3.1.0",
      info: {
        title: "metric-reliability",
        version,
        description:
          "Inferred data tests, compiled metric definitions and metric reliability. Every REST operation has a tRPC twin " +
          "under /trpc with the same input, output and auth. REST errors always have the body { error: { code, message } }. " +
          `This document is served without a key at GET ${OPENAPI_PATH}.`,
        ...(license ? { license: { name: license, identifier: license } } : {}),
      },
      servers: [{ url: "/", description: "the daemon serving this document" }],
      tags: [
        { name: "REST", description: "The /v1 REST API." },
        {
          name: "tRPC",
          description:
            "The same procedures through tRPC (what @trpc/client calls): single calls are documented; batched calls (?batch=1) answer an array.",
        },
      ],
      components: {
        securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "an API key (API_KEYS or API_READONLY_KEYS)" } },
      },
      security: [{ bearer: [] }],
      paths,
    }),
  );
}
