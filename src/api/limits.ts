// HTTP limits shared by both transports: a per-key rate limit on writes (REST POSTs and tRPC
// mutations), the request body cap, and answer deadlines. Violations are AppErrors, so each
// transport maps them once, like every other error (429 carries Retry-After).
import { createHash } from "node:crypto";
import type { RequestHandler } from "express";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { AppError } from "../errors/app-error.js";
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
}

export const DEFAULT_LIMITS: HttpLimits = {
  postRateLimit: 30,
  postRateLimitWindowSeconds: 60,
  bodyLimitBytes: 16_384,
  requestTimeoutSeconds: 30,
  scanWaitTimeoutSeconds: 600,
};

/** Counts a write against the caller's key; throws AppError rate_limited when over the limit. */
export type WriteLimiter = (authorization: string | undefined) => Promise<void>;

export function createWriteLimiter(limits: Pick<HttpLimits, "postRateLimit" | "postRateLimitWindowSeconds">): WriteLimiter {
  const points = limits.postRateLimit;
  const window = limits.postRateLimitWindowSeconds;
  if (points === 0) return async () => {};
  // In memory, per replica: N replicas behind a Service allow up to N times the limit.
  const limiter = new RateLimiterMemory({ points, duration: window });
  return async (authorization) => {
    const token = bearerToken(authorization);
    // Runs after authentication; a request without a key never gets here.
    if (token === null) return;
    // Keyed by a digest: the limiter's memory never holds a key.
    const key = createHash("sha256").update(token, "utf8").digest("base64url");
    try {
      await limiter.consume(key);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      const seconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
      throw new AppError(
        "rate_limited",
        `too many write requests with this API key (limit ${points} per ${window}s); retry in ${seconds}s`,
        {
          headers: { "Retry-After": String(seconds) },
        },
      );
    }
  };
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
