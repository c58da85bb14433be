// The HTTP transport: REST /v1, tRPC /trpc, and the open operational endpoints.
// This module only builds the app; main.ts attaches it to the server bound by http-server.ts.
import { createExpressMiddleware } from "@trpc/server/adapters/express";
import compression from "compression";
import express, { type Express, type RequestHandler } from "express";
import type { Readiness } from "../health/readiness.js";
import { ERROR_CODES } from "../errors/app-error.js";
import type { Logger } from "../logger.js";
import { ROUTE_LABEL_LOCAL, type Metrics } from "../metrics/prometheus.js";
import type { Services } from "../services/types.js";
import {
  bearerToken,
  constantTimeEqual,
  createAuthenticator,
  keyIds,
  knownRequestKey,
  requestAuthorizer,
  type Authenticator,
  type AuthOptions,
} from "./auth.js";
import type { EndpointTable } from "./endpoint.js";
import { endpoints } from "./endpoints.js";
import {
  answerDeadline,
  clientOf,
  createAuthThrottle,
  createWriteLimiter,
  DEFAULT_LIMITS,
  MAX_BATCH_CALLS,
  type AuthThrottle,
  type HttpLimits,
  type WriteLimiter,
} from "./limits.js";
import { buildOpenApiDocument, OPENAPI_PATH } from "./openapi.js";
import { errorMiddleware, notFoundHandler, sendError } from "./rest/http-errors.js";
import { registerRoutes } from "./rest/routes.js";
import { pinScan, type ScanPinning } from "./scan-pinning.js";
import { routerOf } from "./trpc/router.js";
import { contextFactory } from "./trpc/trpc.js";
import { appErrorOf } from "./trpc/trpc-errors.js";
import { AppError } from "../errors/app-error.js";

/** What the API's app hands a transport mounted beside it: the same services, keys and limits. */
export interface SharedWithPages {
  services: Services;
  auth: AuthOptions;
  authenticate: Authenticator;
  limits: HttpLimits;
  /** one write budget per key: the API's and the pages' writes count together */
  limitWrites: WriteLimiter;
  /** one wrong-key count per client: the login form's and the API's */
  throttle: AuthThrottle;
  logger: Logger;
  /** GET pages: the view pinned, X-Scan-Id, ?min_scan and the ?scan notice honoured (absent: none of it) */
  pinScan?: RequestHandler;
  /** the scan the replica's view reflects now (a form's redirect asks the next page for at least it) */
  currentScan?: () => string | null;
}

export interface HttpAppOptions {
  services: Services;
  auth: AuthOptions;
  metrics: Pick<Metrics, "registry" | "handler" | "httpMiddleware">;
  readiness: Readiness;
  logger: Logger;
  /** DEFAULT_LIMITS when not given */
  limits?: HttpLimits;
  /** the endpoint table REST, tRPC and the OpenAPI document are generated from (default: endpoints.ts) */
  endpoints?: EndpointTable;
  /**
   * Another transport mounted beside the API (the pages for people, src/web), built by the
   * composition root from what the API shares with it; without it the daemon serves the API only.
   */
  pages?: (shared: SharedWithPages) => RequestHandler;
  /** Reads say which scan they reflect and honour ?min_scan / X-Min-Scan (scan-pinning.ts); absent: they do not. */
  scans?: ScanPinning;
  /** when set, /metrics needs `Authorization: Bearer <token>` (METRICS_TOKEN) */
  metricsToken?: string | undefined;
  /** when set, requests naming another host are refused (ALLOWED_HOSTS); see allowedHosts() */
  allowedHosts?: readonly string[] | undefined;
  /** express' "trust proxy" (TRUST_PROXY): which proxies' X-Forwarded-For names the client */
  trustProxy?: boolean | number | string | undefined;
}

const IP_LITERAL = /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:.]+\])$/i;

/**
 * Refuses a request whose Host header names a host outside `allowed` (exact names, or `.suffix`
 * for a domain and its subdomains; ports ignored), so that a page on another name resolving to
 * this daemon (DNS rebinding) gets nothing. A Host that is an IP address is accepted: kubelet
 * probes and Prometheus' pod scrapes name the pod's address, and a rebinding page cannot.
 */
export function allowedHosts(allowed: readonly string[]): RequestHandler {
  const names = allowed.map((h) => h.toLowerCase());
  const matches = (host: string) => names.some((n) => (n.startsWith(".") ? host === n.slice(1) || host.endsWith(n) : host === n));
  return (req, res, next) => {
    const header = (req.headers.host ?? "").toLowerCase();
    const host = header.startsWith("[") ? header.slice(0, header.indexOf("]") + 1) : header.split(":")[0]!;
    if (host !== "" && (IP_LITERAL.test(host) || matches(host))) return next();
    sendError(res, new AppError("bad_request", "this daemon does not answer for that host name (ALLOWED_HOSTS)"));
  };
}

/** /metrics behind METRICS_TOKEN: 401 without it, counted as a wrong key when another token is sent. */
function metricsGuard(token: string, throttle: AuthThrottle): RequestHandler {
  return async (req, _res, next) => {
    const client = clientOf(req);
    await throttle.check(client);
    const presented = bearerToken(req.headers.authorization);
    if (presented !== null && constantTimeEqual(presented, token)) return next();
    if (presented !== null) await throttle.failed(client);
    throw new AppError("unauthorized", "/metrics needs Authorization: Bearer <METRICS_TOKEN>");
  };
}

/**
 * One line per request: method, path and status only, never headers (API keys), query strings or
 * bodies. The path is the original URL's, so tRPC lines keep their /trpc prefix. Probes and
 * successful reads log at debug. A 5xx is logged here like any request; its error is logged once,
 * by the error handler of its transport.
 * Written here rather than with pino-http: it made a child logger (bindings serialised) for
 * every request, whether its line is written or not, about a tenth of a cached page's cost.
 */
function requestLog(logger: Logger): RequestHandler {
  const pathOf = (url: string | undefined) => (url ?? "").split("?")[0]!.slice(0, 200);
  const probes = new Set(["/healthz", "/readyz", "/metrics"]);
  return (req, res, next) => {
    const started = performance.now();
    res.once("close", () => {
      const status = res.statusCode;
      const path = pathOf(req.originalUrl);
      // Probes, and reads that succeeded, at debug: circuit breakers poll thousands of times a minute
      // and each line costs the event loop. Writes, client errors and failures stay at info.
      const level = probes.has(path) || (req.method === "GET" && status < 400) ? "debug" : "info";
      if (!logger.isLevelEnabled(level)) return;
      const line = {
        req: { method: req.method, path },
        res: { status },
        responseTime: Math.round(performance.now() - started),
        // the client went away before the answer was written
        ...(res.writableFinished ? {} : { aborted: true }),
      };
      logger[level](line, "request");
    });
    next();
  };
}

export function createHttpApp(options: HttpAppOptions): Express {
  const { services, metrics, readiness, logger } = options;
  const authenticate = createAuthenticator(options.auth);
  const authorize = requestAuthorizer(authenticate);
  const limits = options.limits ?? DEFAULT_LIMITS;
  const limitWrites = createWriteLimiter(limits, keyIds(options.auth));
  const throttle = createAuthThrottle(limits);
  const table = options.endpoints ?? endpoints;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  if (options.trustProxy !== undefined) app.set("trust proxy", options.trustProxy);
  if (options.allowedHosts && options.allowedHosts.length > 0) app.use(allowedHosts(options.allowedHosts));

  app.use(metrics.httpMiddleware);
  app.use(requestLog(logger));
  // gzip (or deflate) when the client accepts it: listings at 10,000 metrics are megabytes of JSON.
  // A request that accepts no encoding skips the middleware, whose response wrapping costs
  // every small answer (a circuit breaker's poll) for nothing.
  const compress = compression();
  app.use((req, res, next) => (req.headers["accept-encoding"] ? compress(req, res, next) : next()));

  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", async (_req, res) => {
    const report = await readiness.check();
    const checks = { checked_at: report.checked_at, store: report.store, warehouses: report.warehouses };
    if (report.ready) res.json({ status: "ready", ...checks });
    else res.status(503).json({ error: { code: "unavailable", message: `not ready: ${report.reason}` }, status: "not_ready", ...checks });
  });
  app.get(
    "/metrics",
    ...(options.metricsToken ? [metricsGuard(options.metricsToken, throttle)] : []),
    async (_req, _res, next) => {
      // Refreshes the dependency gauges (cached like /readyz), so a scrape sees a current outage.
      await readiness.check();
      next();
    },
    metrics.handler,
  );

  // Open like /healthz: a client generator must be able to read it before it has a key.
  const openapi = buildOpenApiDocument(undefined, table);
  app.get(OPENAPI_PATH, (_req, res) => {
    res.json(openapi);
  });

  app.use("/v1", answerDeadline(limits));
  // Wrong keys, per client: a refused client is refused before its key is compared.
  app.use("/v1", (req, _res, next) => {
    const client = clientOf(req);
    const counted = () =>
      bearerToken(req.headers.authorization) !== null && !knownRequestKey(authorize, req)
        ? throttle.failed(client).then(() => next())
        : next();
    // Synchronous unless this client sent a wrong key lately (most requests: no promise, no extra turn).
    const checked = throttle.check(client);
    return checked ? checked.then(counted) : counted();
  });
  if (options.scans) {
    const pin = pinScan(options.scans, { authorize: (req) => void authorize(req, "read") });
    app.use("/v1", pin);
    app.use("/trpc", pin);
  }
  registerRoutes(app, services, table, {
    authorize,
    limitWrites,
    bodyLimitBytes: limits.bodyLimitBytes,
    maxAnswerBytes: limits.maxAnswerBytes,
  });

  app.use(
    "/trpc",
    (req, res, next) => {
      res.locals[ROUTE_LABEL_LOCAL] = "/trpc";
      // A mutation without input needs no body, and `curl -X POST` sends no Content-Type:
      // read an empty body as JSON instead of refusing it (REST accepts the same request).
      const empty =
        req.headers["content-length"] === "0" ||
        (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined);
      if (req.method === "POST" && req.headers["content-type"] === undefined && empty) req.headers["content-type"] = "application/json";
      next();
    },
    createExpressMiddleware({
      router: routerOf(table, services),
      createContext: contextFactory({ authenticate, limitWrites, limits, throttle }),
      maxBodySize: limits.bodyLimitBytes,
      // A longer batch is a 400 before any call runs (or any context is made).
      maxBatchSize: MAX_BATCH_CALLS,
      // Same headers as REST: WWW-Authenticate on 401, Retry-After etc. from the AppError; and
      // for a single call, the HTTP status of its AppError code, as REST answers it (tRPC would
      // say 415/413/405 for its own request errors, which are our bad_request).
      responseMeta: ({ errors, info }) => {
        const headers: Record<string, string> = {};
        for (const error of errors) {
          const appError = appErrorOf(error);
          Object.assign(headers, appError.headers);
          if (appError.code === "unauthorized") headers["WWW-Authenticate"] = "Bearer";
        }
        const single = errors.length === 1 && !info?.isBatchCall;
        return single ? { headers, status: ERROR_CODES[appErrorOf(errors[0]).code].http } : { headers };
      },
      onError: ({ error, path }) => {
        if (appErrorOf(error).code === "internal") logger.error({ err: error.cause ?? error, procedure: path }, "tRPC procedure failed");
      },
    }),
  );

  // An unknown path under /v1 still needs a key: without one, every /v1 call is a 401.
  app.use("/v1", (req, _res, next) => {
    authorize(req, "read");
    next();
  });
  if (options.pages) {
    const { scans } = options;
    const pages = scans
      ? { pinScan: pinScan(scans, { lenient: "scan" }), currentScan: () => scans.readModel.view().scan?.scan_id ?? null }
      : {};
    app.use(options.pages({ services, auth: options.auth, authenticate, limits, limitWrites, throttle, logger, ...pages }));
  }
  app.use(notFoundHandler);
  app.use(errorMiddleware(logger));
  return app;
}
