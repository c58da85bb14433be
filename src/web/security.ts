// What protects the pages beyond the session: security headers (helmet, with a strict
// Content-Security-Policy: only the daemon's own script and stylesheet, no inline code, no
// framing), the CSRF synchroniser token on every form POST (csrf-sync, the token kept in the
// sealed session), and a same-origin check on POSTs, which also covers the login form that has
// no session yet.
import type { Request, RequestHandler, Response } from "express";
import { csrfSync } from "csrf-sync";
import helmet from "helmet";
import { AppError } from "../errors/app-error.js";
import type { WebSession } from "./session.js";

/** The session a request was authenticated with, set by the pages' session middleware. */
const sessions = new WeakMap<Request, WebSession>();
export const attachSession = (req: Request, session: WebSession): void => void sessions.set(req, session);
export const sessionOf = (req: Request): WebSession | undefined => sessions.get(req);

export const CSRF_FIELD = "_csrf";

const csrf = csrfSync({
  getTokenFromState: (req) => sessionOf(req)?.csrfToken,
  // The token is made at login and sealed into the session; nothing to store per request.
  storeTokenInState: () => undefined,
  getTokenFromRequest: (req) => {
    const value = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
    return typeof value === "string" ? value : undefined;
  },
  errorConfig: { statusCode: 403, message: "this form has expired or did not come from this site: reload the page and try again" },
});

/** Refuses a POST whose synchroniser token does not match the session's (403). */
export const csrfProtection: RequestHandler = csrf.csrfSynchronisedProtection;

const helmetHeaders: RequestHandler = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
  },
  // HTTPS is the ingress' business; HSTS from a daemon that may be reached over plain HTTP on
  // a port-forward would pin a host name it does not own.
  strictTransportSecurity: false,
  frameguard: { action: "deny" },
  referrerPolicy: { policy: "same-origin" },
});

/**
 * helmet's headers, as helmet sets them: with these options they are the same for every request
 * (no nonce, no per-request directive), so helmet runs once, on a recording response, and each
 * page sets the result in one pass instead of through helmet's dozen middleware functions.
 */
function recordHeaders(middleware: RequestHandler): { set: [string, string][]; removed: string[] } {
  const set = new Map<string, string>();
  const removed: string[] = [];
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => void set.set(name, String(value)),
    removeHeader: (name: string) => void removed.push(name),
  };
  let passed = false;
  let failure: unknown;
  void middleware({} as Request, recorder as unknown as Response, (error?: unknown) => {
    failure = error;
    passed = true;
  });
  if (failure !== undefined) throw new Error("helmet refused its options", { cause: failure });
  if (!passed || !set.has("Content-Security-Policy")) throw new Error("helmet did not set its headers synchronously");
  return { set: [...set], removed };
}

const HEADERS = recordHeaders(helmetHeaders);

export const securityHeaders: RequestHandler = (_req, res, next) => {
  for (const [name, value] of HEADERS.set) res.setHeader(name, value);
  for (const name of HEADERS.removed) res.removeHeader(name);
  next();
};

/** Pages carry per-session content: no cache may keep them. */
export const noStore: RequestHandler = (_req, res, next) => {
  res.set("Cache-Control", "no-store");
  next();
};

/**
 * Browsers say where a POST comes from: a cross-site form is refused before anything is parsed
 * (defence in depth beside SameSite=Strict and the token; the login form has only this).
 */
export const sameOrigin: RequestHandler = (req, _res, next) => {
  const site = req.headers["sec-fetch-site"];
  const origin = req.headers.origin;
  // Behind a proxy that rewrites Host, the browser's host is in X-Forwarded-Host (a header no
  // cross-site form can set).
  const forwarded = req.headers["x-forwarded-host"];
  const hosts = [req.headers.host, ...(typeof forwarded === "string" ? forwarded.split(",").map((h) => h.trim()) : [])];
  const from = origin === undefined ? undefined : hostOf(origin);
  const crossSite =
    (site !== undefined && site !== "same-origin" && site !== "none") || from === null || (from !== undefined && !hosts.includes(from));
  if (crossSite) throw new AppError("forbidden", "cross-site form posts are refused");
  next();
};

/** The host of an Origin header; null for "null" (an opaque origin) or anything unparsable. */
function hostOf(origin: string): string | null {
  try {
    return origin === "null" ? null : new URL(origin).host;
  } catch {
    return null;
  }
}
