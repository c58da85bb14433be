// REST /v1: parse input with the shared schema, call the service, send JSON. Nothing else.
import express, { type Express, type Request, type RequestHandler, type Response } from "express";
import type { Services } from "../../services/types.js";
import type { Access, Authenticator } from "../auth.js";
import { serializedJson } from "../../services/serialized.js";
import type { WriteLimiter } from "../limits.js";
import {
  irListingQuery,
  metricNameInput,
  parseInput,
  scanIdInput,
  scanInput,
  statusListingQuery,
  tableInput,
  testListingQuery,
} from "../schemas.js";

export interface RouteOptions {
  authenticate: Authenticator;
  limitWrites: WriteLimiter;
  /** body size cap for POST routes: no endpoint takes a body, so anything large is abuse */
  bodyLimitBytes: number;
}

function requireAccess(authenticate: Authenticator, need: Access): RequestHandler {
  return (req, _res, next) => {
    authenticate(req.headers.authorization, need);
    next();
  };
}

/** A caller that hung up is owed nothing: no service call, no serialisation. */
const gone = (req: Request) => req.destroyed || req.socket.destroyed;

/**
 * Sends a listing that was serialised once as its bytes; anything else through res.json.
 * Nothing once the deadline (limits.ts) has already answered 503.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  if (res.headersSent) return;
  const bytes = serializedJson(body);
  if (bytes) res.status(status).type("application/json").send(bytes);
  else res.status(status).json(body);
}

/** Express 5 forwards a rejected promise to the error middleware, so no try/catch here. */
const ok =
  (handler: (req: Request) => Promise<unknown>): RequestHandler =>
  async (req: Request, res: Response) => {
    if (gone(req)) return;
    const body = await handler(req);
    if (!gone(req)) sendJson(res, 200, body);
  };

export function registerRoutes(app: Express, services: Services, options: RouteOptions): void {
  const { authenticate, limitWrites } = options;
  // Auth runs per route (after routing), so the HTTP metrics label 401s with the route pattern.
  const read = requireAccess(authenticate, "read");
  const authorizeWrite = requireAccess(authenticate, "write");
  // Counted only once the key is known to be a read-write key.
  const limited: RequestHandler = async (req, _res, next) => {
    await limitWrites(req.headers.authorization);
    next();
  };
  const write = [authorizeWrite, limited];
  // Parsed only after auth, so an anonymous caller cannot make us parse anything.
  const body = express.json({ limit: options.bodyLimitBytes });
  const { validation, compiler, reliability } = services;

  app.get(
    "/v1/validation/tests",
    read,
    ok((req) => validation.listTests(parseInput(testListingQuery, req.query))),
  );
  app.post(
    "/v1/semantic-tests/run",
    ...write,
    body,
    ok(() => validation.runTests()),
  );

  app.get(
    "/v1/compiler/ir",
    read,
    ok((req) => compiler.status(parseInput(irListingQuery, req.query))),
  );
  app.get(
    "/v1/compiler/status",
    read,
    ok((req) => compiler.status(parseInput(irListingQuery, req.query))),
  );
  app.get(
    "/v1/compiler/ir/:name",
    read,
    ok((req) => compiler.irByName(parseInput(metricNameInput, req.params).name)),
  );

  app.get(
    "/v1/reliability/status",
    read,
    ok((req) => reliability.status(parseInput(statusListingQuery, req.query))),
  );
  app.get(
    "/v1/reliability/status/:name",
    read,
    ok((req) => reliability.metricStatus(parseInput(metricNameInput, req.params).name)),
  );
  app.get(
    "/v1/reliability/affected-by/:table",
    read,
    ok((req) => reliability.affectedBy(parseInput(tableInput, req.params).table)),
  );
  app.post("/v1/reliability/scan", ...write, body, async (req, res) => {
    const wait = parseInput(scanInput, req.query).wait ?? false;
    const scan = await reliability.triggerScan({ wait });
    // 202: accepted and still running; 200: the finished scan (?wait=true).
    sendJson(res, wait ? 200 : 202, scan);
  });
  app.get(
    "/v1/reliability/scans/:id",
    read,
    ok((req) => reliability.getScan(parseInput(scanIdInput, req.params).id)),
  );
}
