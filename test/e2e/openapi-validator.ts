// Validates a live response against the operation's documented response in the served
// OpenAPI document (GET /v1/openapi.json), with ajv's JSON Schema 2020-12 validator.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { HttpResult } from "./daemon-harness.js";

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export type Method = "get" | "post";
interface ResponseObject {
  content?: Record<string, { schema?: unknown }>;
  headers?: Record<string, unknown>;
}
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Partial<Record<Method, { responses: Record<string, ResponseObject> }>>>;
}

export interface ResponseValidator {
  doc: OpenApiDocument;
  /** Throws, saying why, unless `res` is a documented response of `method template` and matches it. */
  validate(method: Method, template: string, res: HttpResult): void;
}

const escape = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1");

export function responseValidator(doc: OpenApiDocument): ResponseValidator {
  // strict: false because the document is OpenAPI, not only JSON Schema (paths, info, ...);
  // every schema inside it is still compiled and applied in full.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, "openapi.json");
  return {
    doc,
    validate(method, template, res) {
      const response = doc.paths[template]?.[method]?.responses[String(res.status)];
      if (!response) throw new Error(`${method} ${template} does not document a ${res.status} response`);
      const pointer = ["#", "paths", template, method, "responses", String(res.status), "content", "application/json", "schema"]
        .map((p, i) => (i === 0 ? p : escape(p)))
        .join("/");
      const validate = ajv.getSchema(`openapi.json${pointer}`);
      if (!validate) throw new Error(`no schema at ${pointer}`);
      if (!validate(res.body))
        throw new Error(
          `${method} ${template} (${res.status}) does not match the document: ${ajv.errorsText(validate.errors)}\n${res.text.slice(0, 500)}`,
        );
      for (const header of Object.keys(response.headers ?? {})) {
        if (res.headers[header.toLowerCase()] === undefined)
          throw new Error(`${method} ${template} (${res.status}) lacks the documented ${header} header`);
      }
    },
  };
}
