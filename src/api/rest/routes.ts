// REST /v1, generated from the endpoint table (../endpoints.ts): per entry, auth, then parse the
// input with the entry's schema, call the service, send JSON. Nothing else.
import express, { type Express, type Request, type RequestHandler } from "express";
import type { Services } from "../../services/types.js";
import type { Access, RequestAuthorizer } from "../auth.js";
import { restInput, type AnyEndpoint, type EndpointTable } from "../endpoint.js";
import { answerJson, answerTooLarge, type WriteLimiter } from "../limits.js";
import { parseInput } from "../schemas.js";

export interface RouteOptions {
  /** the request's access, asked once a request (auth.ts) */
  authorize: RequestAuthorizer;
  limitWrites: WriteLimiter;
  /** body size cap for POST routes */
  bodyLimitBytes: number;
  /** answer size cap (limits.ts) */
  maxAnswerBytes: number;
}

function requireAccess(authorize: RequestAuthorizer, need: Access): RequestHandler {
  return (req, _res, next) => {
    authorize(req, need);
    next();
  };
}

/**
 * A caller that hung up is owed nothing: no service call, no serialisation. (A request whose JSON
 * body was read to the end is destroyed too, but complete: its caller still waits.)
 */
const gone = (req: Request) => req.socket.destroyed || (req.destroyed && !req.complete);

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** Express 5 forwards a rejected promise to the error middleware, so no try/catch here. */
const answer = (e: AnyEndpoint, services: Services, maxAnswerBytes: number): RequestHandler => {
  const paged = "limit" in e.input.shape;
  return async (req, res) => {
    if (gone(req)) return;
    const input = parseInput(e.input, restInput(e, req));
    const body = await e.call(services, input);
    if (gone(req) || res.headersSent) return;
    const json = answerJson(body);
    const bytes = typeof json === "string" ? Buffer.byteLength(json, "utf8") : json.length;
    if (bytes > maxAnswerBytes) throw answerTooLarge(bytes, maxAnswerBytes, paged);
    // The header as express' type("application/json") would write it, without looking it up per request.
    res.setHeader("Content-Type", JSON_CONTENT_TYPE);
    res.status(e.status?.(input) ?? 200).send(json);
  };
};

export function registerRoutes(app: Express, services: Services, table: EndpointTable, options: RouteOptions): void {
  const { authorize, limitWrites } = options;
  // Auth runs per route (after routing), so the HTTP metrics label 401s with the route pattern.
  const read = requireAccess(authorize, "read");
  const authorizeWrite = requireAccess(authorize, "write");
  // Counted only once the key is known to be a read-write key.
  const limited: RequestHandler = async (req, _res, next) => {
    await limitWrites(req.headers.authorization);
    next();
  };
  const guards: Record<Access, RequestHandler[]> = { read: [read], write: [authorizeWrite, limited] };
  // Parsed only after auth, so an anonymous caller cannot make us parse anything.
  const body = express.json({ limit: options.bodyLimitBytes });

  for (const e of Object.values(table)) {
    const handler = answer(e, services, options.maxAnswerBytes);
    if (e.method === "GET") app.get(e.path, ...guards[e.auth], handler);
    else app.post(e.path, ...guards[e.auth], body, handler);
  }
}
