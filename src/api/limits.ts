// HTTP limits shared by both transports: a per-key rate limit on writes (REST POSTs, tRPC
// mutations and the pages' forms: one budget per key), a per-client throttle on wrong keys, the
// request body cap, the size of an answer, the calls in a tRPC batch, and answer deadlines.
// Violations are AppErrors, so each transport maps them once, like every other error (429
// carries Retry-After).
import type { RequestHandler } from "express";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { AppError } from "../errors/app-error.js";
import { serializedJson } from "../services/serialized.js";
import { bearerToken } from "./auth.js";
import { sendError } from "./rest/http-errors.js";

export interface HttpLimits {
  /** writes per key per window; 0 disables the limit */
  postRateLimit: number;
  postRateLimitWindowSeconds: number;
  bodyLimitBytes: number;
  /** time to receive a request, and to answer a read */
  requestTimeoutSeconds: number;
  /** time to answer a write: POSTs may wait for a whole scan */
  scanWaitTimeoutSeconds: number;
  /** bytes of JSON one request may be answered with (a tRPC batch: all its calls together) */
  maxAnswerBytes: number;
  /** wrong keys per client per window before every key from it is refused (429); 0 disables */
  authFailureLimit: number;
  authFailureWindowSeconds: number;
}

/** Calls in one tRPC batch; a longer batch is refused (400) before any call runs. */
export const MAX_BATCH_CALLS = 20;

export const DEFAULT_LIMITS: HttpLimits = {
  postRateLimit: 30,
  postRateLimitWindowSeconds: 60,
  bodyLimitBytes: 16_384,
  requestTimeoutSeconds: 30,
  scanWaitTimeoutSeconds: 600,
  maxAnswerBytes: 4 * 1024 * 1024,
  authFailureLimit: 10,
  authFailureWindowSeconds: 60,
};

/**
 * Counts a write against a key's budget; throws AppError rate_limited when over the limit. The API
 * passes the Authorization header, the pages the session's key id: both count against one budget.
 */
export interface WriteLimiter {
  (authorization: string | undefined): Promise<void>;
  byKeyId(id: string): Promise<void>;
}

export function createWriteLimiter(
  limits: Pick<HttpLimits, "postRateLimit" | "postRateLimitWindowSeconds">,
  keyId: (key: string) => string,
): WriteLimiter {
  const points = limits.postRateLimit;
  const window = limits.postRateLimitWindowSeconds;
  // In memory, per replica: N replicas behind a Service allow up to N times the limit.
  const limiter = points === 0 ? null : new RateLimiterMemory({ points, duration: window });
  // Keyed by the key's id: the limiter's memory never holds a key.
  const byKeyId = async (id: string) => {
    try {
      await limiter?.consume(id);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      const seconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
      throw new AppError(
        "rate_limited",
        `too many write requests with this API key (limit ${points} per ${window}s, pages and API together); retry in ${seconds}s`,
        { headers: { "Retry-After": String(seconds) } },
      );
    }
  };
  const byAuthorization = async (authorization: string | undefined) => {
    const token = bearerToken(authorization);
    // Runs after authentication; a request without a key never gets here.
    if (token !== null) await byKeyId(keyId(token));
  };
  return Object.assign(byAuthorization, { byKeyId });
}

/**
 * Wrong keys, per client (its address; behind a proxy see TRUST_PROXY): after `authFailureLimit`
 * wrong keys in the window, every key from that client is refused with 429 until the window ends,
 * the right ones too, else a refusal would tell a guess apart from a hit. Checked before a key is
 * compared, counted when one is wrong; the limiter answers without I/O, so a burst of requests
 * cannot slip between the check and the count.
 */
export interface AuthThrottle {
  /**
   * Rejects with rate_limited while `client` is refused; nothing (no promise) for a client with no
   * wrong key in the window, so that every other request passes without a turn of the event loop.
   */
  check(client: string): Promise<void> | undefined;
  /** counts a wrong key from `client` */
  failed(client: string): Promise<void>;
}

/** Clients that never came back are swept once the map reaches this, then at twice what stays. */
const WATCHED_SWEEP_AT = 10_000;

export function createAuthThrottle(limits: Pick<HttpLimits, "authFailureLimit" | "authFailureWindowSeconds">): AuthThrottle {
  const points = limits.authFailureLimit;
  const window = limits.authFailureWindowSeconds;
  if (points === 0) return { check: () => undefined, failed: async () => {} };
  const limiter = new RateLimiterMemory({ points, duration: window });
  /** client -> when its newest wrong key leaves the window (ms): no entry, nothing to ask the limiter */
  const watched = new Map<string, number>();
  let sweepAt = WATCHED_SWEEP_AT;
  const ask = async (client: string) => {
    const state = await limiter.get(client);
    if (state && state.consumedPoints >= points) throw refusal(state.msBeforeNext);
  };
  const refusal = (msBeforeNext: number) => {
    const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
    return new AppError("rate_limited", `too many wrong API keys from this client (${points} per ${window}s); retry in ${seconds}s`, {
      headers: { "Retry-After": String(seconds) },
    });
  };
  return {
    check(client) {
      const until = watched.get(client);
      if (until === undefined) return undefined;
      if (until > Date.now()) return ask(client);
      watched.delete(client);
      return undefined;
    },
    async failed(client) {
      const now = Date.now();
      // Guessing from many addresses must not grow the map for good, nor make each wrong key a sweep.
      if (watched.size >= sweepAt) {
        for (const [c, until] of watched) if (until <= now) watched.delete(c);
        sweepAt = Math.max(WATCHED_SWEEP_AT, 2 * watched.size);
      }
      watched.set(client, now + window * 1000);
      // Over the limit consume rejects; the next check refuses.
      await limiter.consume(client).catch((error: unknown) => {
        if (!(error instanceof RateLimiterRes)) throw error;
      });
    },
  };
}

/** The address a request comes from (req.ip follows express' "trust proxy", set from TRUST_PROXY). */
export const clientOf = (req: { ip?: string | undefined; socket: { remoteAddress?: string | undefined } }): string =>
  req.ip ?? req.socket.remoteAddress ?? "unknown";

/**
 * An answer's JSON: the bytes serialised once for every caller (services/cached-services.ts), or
 * serialised now, once: what is measured is what REST sends.
 */
export const answerJson = (body: unknown): Buffer | string => serializedJson(body) ?? JSON.stringify(body);

/**
 * The answer-size cap: a listing answered whole (or a page) past `maxAnswerBytes` is refused with
 * a message saying how to ask for less; `paged` says whether the endpoint takes limit/cursor.
 */
export function answerTooLarge(bytes: number, maxBytes: number, paged: boolean): AppError {
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return new AppError(
    "bad_request",
    `this answer would be ${mb(bytes)}, over the ${mb(maxBytes)} one request may be answered with (MAX_ANSWER_BYTES)` +
      (paged ? ": ask for pages (limit=500, then cursor=next_cursor), or filter by metric or table" : ""),
  );
}

export const timeoutError = (seconds: number) =>
  new AppError("unavailable", `request timed out after ${seconds}s (a scan it started goes on; see GET /v1/reliability/scans/:id)`);

/** Milliseconds a request may take to be answered: reads are short, writes may wait for a scan. */
export function answerDeadlineMs(limits: HttpLimits, write: boolean): number {
  return (write ? limits.scanWaitTimeoutSeconds : limits.requestTimeoutSeconds) * 1000;
}

/**
 * REST: answers 503 when a handler has not answered in time. The handler is not cancelled (a
 * scan it started finishes); what it sends afterwards is dropped (see `ok` in routes.ts).
 */
export function answerDeadline(limits: HttpLimits): RequestHandler {
  return (req, res, next) => {
    const ms = answerDeadlineMs(limits, req.method !== "GET" && req.method !== "HEAD");
    const timer = setTimeout(() => {
      if (!res.headersSent) sendError(res, timeoutError(ms / 1000));
    }, ms);
    res.once("close", () => clearTimeout(timer));
    next();
  };
}
