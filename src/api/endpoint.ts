// The shape of one endpoint of the API (see endpoints.ts for the table and how to add one), and
// the few facts every transport derives from it the same way: path parameters, where REST reads
// the rest of the input, whether the tRPC input may be left out.
import type { z } from "zod";
import { badRequest } from "../errors/app-error.js";
import type { Services } from "../services/types.js";
import type { Access } from "./auth.js";
import { queryOf } from "./request-query.js";

export type HttpMethod = "GET" | "POST";
export type SuccessStatus = 200 | 202;
/** Errors an endpoint answers beyond those every endpoint can (400, 401, 429, 500, 503; writes also 403). */
export type EndpointError = "not_found" | "conflict";

export interface Endpoint<
  M extends HttpMethod = HttpMethod,
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodType = z.ZodType,
  R = unknown,
> {
  /** GET is a tRPC query, POST a tRPC mutation. */
  method: M;
  /** Express syntax: `/v1/reliability/status/:name`; every `:param` is a field of `input`. */
  path: `/v1/${string}`;
  /** "write" (rate limited, 403 for a read-only key) for every POST; "read" for every GET. */
  auth: Access;
  /** One line for the OpenAPI document. */
  summary: string;
  /**
   * The ONE input object (src/api/schemas.ts). tRPC takes it whole (optional when `{}` is valid,
   * absent when it has no field); REST reads path parameters + the query string, or path
   * parameters + the JSON body when `body` is true.
   */
  input: I;
  body?: boolean;
  /** The answer's schema (src/api/response-schemas.ts); `call` must return a value of its type. */
  output: O;
  /** Description of each success status; 200 unless `status` picks another. */
  success: Partial<Record<SuccessStatus, string>>;
  status?(input: z.output<I>): SuccessStatus;
  errors?: readonly EndpointError[];
  /** One service call. Method syntax on purpose: entries of different inputs fit one table type. */
  call(services: Services, input: z.output<I>): Promise<R>;
}

export type AnyEndpoint = Endpoint<HttpMethod, z.ZodObject, z.ZodType, unknown>;
/** Keyed by the tRPC procedure name, `namespace.procedure`: also the REST operation's operationId. */
export type EndpointTable = Record<`${string}.${string}`, AnyEndpoint>;

/**
 * Declares one endpoint, keeping its literal method, input schema and result type for the tRPC
 * router's static type; the compiler checks that `call` returns what `output` describes.
 */
export function endpoint<M extends HttpMethod, I extends z.ZodObject, O extends z.ZodType, R extends z.output<O>>(
  entry: Endpoint<M, I, O, R>,
): Endpoint<M, I, O, R> {
  return entry;
}

/** `reliability.statusByName` -> ["reliability", "statusByName"]. */
export function splitProcedureName(name: string): [namespace: string, procedure: string] {
  const dot = name.indexOf(".");
  if (dot <= 0 || dot === name.length - 1 || name.includes(".", dot + 1)) {
    throw new Error(`endpoint "${name}": the key must be namespace.procedure`);
  }
  return [name.slice(0, dot), name.slice(dot + 1)];
}

/** The `:param` names of an Express path, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
}

/** `/v1/compiler/ir/:name` -> `/v1/compiler/ir/{name}` */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");

/** The input object has no field at all: tRPC takes no input and REST parses nothing. */
export const takesNoInput = (e: AnyEndpoint): boolean => Object.keys(e.input.shape).length === 0;

/** `{}` is a valid input (every field optional): a tRPC caller may leave the input out. */
export const inputIsOptional = (e: AnyEndpoint): boolean => e.input.safeParse({}).success;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * REST's input object before parsing: the query string (or the JSON body for a `body` entry)
 * with the path parameters over it, so a path parameter cannot be overridden.
 */
export function restInput(
  e: AnyEndpoint,
  request: { url: string; params: unknown; query: unknown; body?: unknown },
): Record<string, unknown> {
  const rest = e.body ? request.body : queryOf(request);
  if (e.body && rest !== undefined && !isPlainObject(rest)) throw badRequest("expected a JSON object as the request body");
  return { ...(isPlainObject(rest) ? rest : {}), ...(isPlainObject(request.params) ? request.params : {}) };
}
