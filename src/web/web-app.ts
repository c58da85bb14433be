// The pages for people: server-rendered HTML over the same services as REST and tRPC, behind a
// login that turns an API key into a session cookie. A transport of its own beside src/api/:
// parse the request, call a service, render a page.
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response, type Router } from "express";
import type { VNode } from "preact";
import { render } from "preact-render-to-string";
import type { AuthOptions, Authenticator } from "../api/auth.js";
import { clientOf, type AuthThrottle, type HttpLimits, type WriteLimiter } from "../api/limits.js";
import { toHttpError } from "../api/rest/http-errors.js";
import { anomalyFeedbackInput, parseInput } from "../api/schemas.js";
import { AppError } from "../errors/app-error.js";
import type { Logger } from "../logger.js";
import type { BrowseService, ScanHealthView } from "../services/browse-service.js";
import type { Services } from "../services/types.js";
import type { ScanView } from "../services/views.js";
import { ASSETS } from "./assets.js";
import { escapeInvisible } from "./visible-text.js";
import { createOverviewRenderer } from "./overview-cache.js";
import { createPageCache } from "./page-cache.js";
import {
  DEFAULT_DIRECTION,
  DEFAULT_SORT,
  incidentPath,
  loginForm,
  metricPath,
  nextPath,
  noticeQuery,
  overviewQuery,
  PAGE_SIZE,
  scanForm,
  tablePath,
} from "./params.js";
import { attachSession, csrfProtection, noStore, sameOrigin, securityHeaders, sessionOf } from "./security.js";
import { createSessions, type WebSession } from "./session.js";
import type { SessionRevocations } from "./session-revocations.js";
import { ErrorPage } from "./views/error-page.js";
import type { PageContext } from "./views/layout.js";
import { LoginPage } from "./views/login-page.js";
import { MetricPage, type AnomalySection } from "./views/metric-page.js";
import { IncidentPage } from "./views/incidents.js";
import { TablePage } from "./views/table-page.js";

export interface WebAppOptions {
  services: Services;
  browse: BrowseService;
  auth: AuthOptions;
  authenticate: Authenticator;
  limits: Pick<HttpLimits, "bodyLimitBytes">;
  /** the API's write budget: one per key, pages and API together */
  limitWrites: WriteLimiter;
  /** the API's wrong-key count per client: the login form counts against it too */
  throttle: AuthThrottle;
  /** logouts kept in the store: a logged-out cookie is refused on every replica */
  revocations?: SessionRevocations | undefined;
  logger: Logger;
  now?: () => Date;
  /** GET pages: the view pinned and named in X-Scan-Id, ?min_scan and the ?scan notice honoured (api/scan-pinning.ts) */
  pinScan?: RequestHandler | undefined;
  /** the scan this replica's view reflects: a form's redirect asks the next page for at least it */
  currentScan?: (() => string | null) | undefined;
}

/** The API's error mapping, less its WWW-Authenticate: Bearer (a person is sent to the login instead). */
function toPageError(error: unknown): { status: number; headers: Record<string, string>; message: string } {
  const { status, headers, body } = toHttpError(error);
  const { "WWW-Authenticate": _bearer, ...rest } = headers;
  return { status, headers: rest, message: body.error.message };
}

/** A page as sent: control and bidirectional characters shown as their escapes (visible-text.ts). */
const html = (page: VNode): string => escapeInvisible(`<!DOCTYPE html>${render(page)}`);

function sendPage(res: Response, status: number, page: VNode): void {
  res.status(status).type("html").send(html(page));
}

export function createWebApp(options: WebAppOptions): Router {
  const { services, browse, logger } = options;
  const now = options.now ?? (() => new Date());
  const sessions = createSessions(options.auth, { revocations: options.revocations });
  // Pages count against the API's write budget (POST_RATE_LIMIT per key per window, one budget),
  // by the session's key id; the limiter only ever sees that id.
  const { limitWrites, throttle } = options;
  const form = express.urlencoded({ extended: false, limit: options.limits.bodyLimitBytes, parameterLimit: 20 });
  const router = express.Router();

  const health = (): Promise<ScanHealthView> => browse.scanHealth();
  const context = async (req: Request, notice: ScanView | null = null): Promise<PageContext> => ({
    now: now(),
    // where the scan button comes back to: this page, less a previous scan's notice
    path: nextPath(req.originalUrl.replace(/([?&])scan=[^&]*&?/, "$1").replace(/[?&]$/, "")),
    session: sessionOf(req) ?? null,
    health: await health(),
    notice,
  });
  /** The notice for a scan a form started (?scan=<id>); a scan the store no longer has shows none. */
  const notice = async (scan: string | undefined): Promise<ScanView | null> =>
    scan === undefined ? null : services.reliability.getScan(scan).catch(() => null);

  const overviewPage = createOverviewRenderer();
  const pages = createPageCache();

  const page: RequestHandler[] = [securityHeaders, noStore];

  /** Pages need a session; without one a GET goes to the login and comes back after it. */
  const requireSession: RequestHandler = async (req, res, next) => {
    const session = await sessions.read(req);
    if (!session) {
      const back = req.method === "GET" ? nextPath(req.originalUrl) : "/";
      res.redirect(303, back === "/" ? "/login" : `/login?next=${encodeURIComponent(back)}`);
      return;
    }
    attachSession(req, session);
    next();
  };
  const requireWrite: RequestHandler = async (req, _res, next) => {
    const session = sessionOf(req)!;
    if (session.access !== "write") throw new AppError("forbidden", "this session's API key is read-only: log in with a read-write key");
    await limitWrites.byKeyId(session.kid);
    next();
  };
  const post: RequestHandler[] = [...page, sameOrigin, requireSession, form, csrfProtection, requireWrite];
  /** a page read: signed in, then served from one pinned view at least as new as the URL asks */
  const read: RequestHandler[] = [...page, requireSession, ...(options.pinScan ? [options.pinScan] : [])];
  /** `&min_scan=<this replica's scan>` for a redirect, so the next page (any replica) is no older */
  const atLeastThis = () => {
    const scan = options.currentScan?.();
    return scan ? `min_scan=${encodeURIComponent(scan)}` : "";
  };

  router.get("/assets/*file", (req, res, next) => {
    const asset = ASSETS.get(req.path);
    if (!asset) return next();
    res.set({ "Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff" });
    res.type(asset.type).send(asset.body);
  });

  router.get("/login", ...page, async (req, res) => {
    const next = nextPath(req.query.next);
    if (await sessions.read(req)) return res.redirect(303, next);
    sendPage(res, 200, LoginPage({ context: { now: now(), path: "/login", session: null, health: null }, next, error: null }));
  });

  const loginPage = (next: string, error: string | null) =>
    LoginPage({ context: { now: now(), path: "/login", session: null, health: null }, next, error });

  router.post("/login", ...page, sameOrigin, form, async (req, res) => {
    const parsed = loginForm.safeParse(req.body);
    const next = nextPath((req.body as Record<string, unknown> | undefined)?.next);
    const refuse = (message: string) => sendPage(res, 401, loginPage(next, message));
    if (!parsed.success) return refuse("Enter an API key.");
    // A client that sent too many wrong keys (here or to the API) is refused before its key is compared.
    const client = clientOf(req);
    try {
      await throttle.check(client);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      res.set(error.headers);
      return sendPage(res, 429, loginPage(next, `${error.message.replace(/^too many/, "Too many")}.`));
    }
    const key = parsed.data.key.trim();
    let access: WebSession["access"];
    try {
      access = options.authenticate(`Bearer ${key}`, "read");
    } catch (error) {
      if (error instanceof AppError && error.code === "unauthorized") {
        await throttle.failed(client);
        return refuse("That API key is not valid.");
      }
      throw error;
    }
    await sessions.start(req, res, key, access);
    res.redirect(303, next);
  });

  router.post("/logout", ...page, sameOrigin, requireSession, form, csrfProtection, async (req, res) => {
    await sessions.end(req, res, sessionOf(req)!);
    res.redirect(303, "/login");
  });

  router.get("/", ...read, async (req, res) => {
    const query = parseInput(overviewQuery, req.query);
    const sort = query.sort ?? DEFAULT_SORT;
    const state = { status: query.status, q: query.q, sort, dir: query.dir ?? DEFAULT_DIRECTION[sort], page: query.page ?? 1 };
    const table = await browse.metricTable({
      status: state.status,
      text: state.q,
      sort: state.sort,
      direction: state.dir,
      page: state.page,
      pageSize: PAGE_SIZE,
    });
    const ctx = await context(req, await notice(query.scan));
    const { incidents } = await services.reliability.incidents({ state: "open" });
    res
      .status(200)
      .type("html")
      .send(overviewPage(ctx, table, { ...state, page: table.page }, incidents));
  });

  // A metric's and a table's page: rendered once per revision, access level, banners and clock (page-cache.ts).
  router.get("/metric/:name", ...read, async (req, res) => {
    const { name } = parseInput(metricPath, req.params);
    const { scan } = parseInput(noticeQuery, req.query);
    const revision = browse.revision();
    const ctx = await context(req, await notice(scan));
    const bytes = await pages.page({ path: `/metric/${name}|${ctx.path}`, revision }, ctx, async (c) => {
      const detail = await browse.metricDetail(name);
      const section = await services.anomalies.series(name).then(
        (view): AnomalySection => ({ kind: "series", view }),
        (error: unknown): AnomalySection => {
          logger.warn({ err: error, metric: name }, "reading the anomaly series for the metric page failed");
          return { kind: "error", message: "The anomaly series could not be read just now." };
        },
      );
      // A page whose series could not be read is not one to keep: the next request tries again.
      return { html: html(MetricPage({ context: c, detail, anomalies: section })), keep: section?.kind !== "error" };
    });
    res.status(200).type("html").send(bytes);
  });

  router.get("/incident/:id", ...read, async (req, res) => {
    const { id } = parseInput(incidentPath, req.params);
    const { scan } = parseInput(noticeQuery, req.query);
    const incident = await services.reliability.incident(id);
    sendPage(res, 200, IncidentPage({ context: await context(req, await notice(scan)), incident }));
  });

  router.get("/table/:table", ...read, async (req, res) => {
    const { table } = parseInput(tablePath, req.params);
    const { scan } = parseInput(noticeQuery, req.query);
    const revision = browse.revision();
    const ctx = await context(req, await notice(scan));
    const bytes = await pages.page({ path: `/table/${table}|${ctx.path}`, revision }, ctx, async (c) => ({
      html: html(TablePage({ context: c, detail: await browse.tableDetail(table) })),
      keep: true,
    }));
    res.status(200).type("html").send(bytes);
  });

  router.post("/scan", ...post, async (req, res) => {
    const next = nextPath(parseInput(scanForm, req.body).next);
    const scan = await services.reliability.triggerScan({ wait: false });
    res.redirect(303, `${next}${next.includes("?") ? "&" : "?"}scan=${encodeURIComponent(scan.scan_id)}`);
  });

  router.post("/metric/:name/anomalies/feedback", ...post, async (req, res) => {
    // The form's fields (rule, measure, start: the series' own values) with the path's metric, read
    // by POST /v1/reliability/anomalies/:metric/feedback's schema and handed to the same service call.
    const fields = typeof req.body === "object" && req.body !== null ? (req.body as Record<string, unknown>) : {};
    const input = parseInput(anomalyFeedbackInput, { ...fields, metric: req.params.name, expected: true });
    await services.anomalies.feedback(input);
    const fresh = atLeastThis();
    res.redirect(303, `/metric/${encodeURIComponent(input.metric)}${fresh ? `?${fresh}` : ""}#anomalies`);
  });

  // Anything else under the pages' prefixes (`/metric/a/b`, `/table/`) is a page that does not exist.
  router.all(["/metric", "/table", "/metric/*rest", "/table/*rest"], ...page, requireSession, () => {
    throw new AppError("not_found", "there is no such page");
  });

  // Only errors raised on the pages' own routes come here (the router sees no other request's
  // errors); the API keeps its JSON errors.
  router.use(((error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    const csrfFailure = (error as { code?: unknown } | null)?.code === "EBADCSRFTOKEN";
    const mapped = csrfFailure ? { status: 403, headers: {}, message: (error as Error).message } : toPageError(error);
    if (mapped.status >= 500) logger.error({ err: error, method: req.method, path: req.path }, "page failed");
    // A malformed path fails before the route's own middleware ran: the headers are set here too.
    securityHeaders(req, res, () => {
      res.set({ ...mapped.headers, "Cache-Control": "no-store" });
      const ctx: PageContext = { now: now(), path: "/", session: sessionOf(req) ?? null, health: null };
      sendPage(res, mapped.status, ErrorPage({ context: ctx, status: mapped.status, message: mapped.message }));
    });
  }) as ErrorRequestHandler);
  return router;
}
