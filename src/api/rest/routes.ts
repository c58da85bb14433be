// REST /v1, generated from the endpoint table (../endpoints.ts): per entry, auth, then parse the
// input with the entry's schema, call the service, send JSON. Nothing else.
import express, { type Express, type Request, type RequestHandler, type Response } from "express";
import { serializedJson } from "../../services/serialized.js";
import type { Services } from "../../services/types.js";
import type { Access, Authenticator } from "../auth.js";
import { restInput, type AnyEndpoint, type EndpointTable } from "../endpoint.js";
import type { WriteLimiter } from "../limits.js";
import { parseInput } from "../schemas.js";

export interface RouteOptions {
  authenticate: Authenticator;
  limitWrites: WriteLimiter;
  /** body size cap for POST routes */
  bodyLimitBytes: number;
}

function requireAccess(authenticate: Authenticator, need: Access): RequestHandler {
  return (req, _res, next) => {
    authenticate(req.headers.authorization, need);
    next();
  };
}

/**
 * A caller that hung up is owed nothing: no service call, no serialisation. (A request whose JSON
 * body was read to the end is destroyed too, but complete: its caller still waits.)
 */
const gone = (req: Request) => req.socket.destroyed || (req.destroyed && !req.complete);

/**
 * Sends an answer that was serialised once (services/cached-services.ts) as its bytes; anything
 * else through res.json. Nothing once the deadline (limits.ts) has already answered 503.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  if (res.headersSent) return;
  const bytes = serializedJson(body);
  if (bytes) res.status(status).type("application/json").send(bytes);
  else res.status(status).json(body);
}

/** Express 5 forwards a rejected promise to the error middleware, so no try/catch here. */
const answer =
  (e: AnyEndpoint, services: Services): RequestHandler =>
  async (req, res) => {
    if (gone(req)) return;
    const input = parseInput(e.input, restInput(e, req));
    const body = await e.call(services, input);
    if (!gone(req)) sendJson(res, e.status?.(input) ?? 200, body);
  };

export function registerRoutes(app: Express, services: Services, table: EndpointTable, options: RouteOptions): void {
  const { authenticate, limitWrites } = options;
  // Auth runs per route (after routing), so the HTTP metrics label 401s with the route pattern.
  const read = requireAccess(authenticate, "read");
  const authorizeWrite = requireAccess(authenticate, "write");
  // Counted only once the key is known to be a read-write key.
  const limited: RequestHandler = async (req, _res, next) => {
    await limitWrites(req.headers.authorization);
    next();
  };
  const guards: Record<Access, RequestHandler[]> = { read: [read], write: [authorizeWrite, limited] };
  // Parsed only after auth, so an anonymous caller cannot make us parse anything.
  const body = express.json({ limit: options.bodyLimitBytes });

  for (const e of Object.values(table)) {
    if (e.method === "GET") app.get(e.path, ...guards[e.auth], answer(e, services));
    else app.post(e.path, ...guards[e.auth], body, answer(e, services));
  }
}
