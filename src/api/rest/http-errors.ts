// AppError -> HTTP, in one place. Body: { error: { code, message } }; never a stack trace.
import type { ErrorRequestHandler, RequestHandler } from "express";
import { AppError, ERROR_CODES, errorBody, toAppError } from "../../errors/app-error.js";
import type { Logger } from "../../logger.js";

export interface HttpErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: ReturnType<typeof errorBody>;
}

/** Errors raised by express itself or body-parser carry a 4xx `status`; they are the client's fault. */
function frameworkError(error: unknown): AppError | null {
  if (typeof error !== "object" || error === null || error instanceof AppError) return null;
  const e = error as { status?: unknown; statusCode?: unknown; type?: unknown };
  const status = typeof e.status === "number" ? e.status : typeof e.statusCode === "number" ? e.statusCode : null;
  if (status === null || status < 400 || status > 499) return null;
  if (e.type === "entity.parse.failed") return new AppError("bad_request", "malformed JSON body", { cause: error });
  if (e.type === "entity.too.large") {
    const limit = (error as { limit?: unknown }).limit;
    return new AppError("bad_request", `request body too large${typeof limit === "number" ? ` (limit ${limit} bytes)` : ""}`, {
      cause: error,
    });
  }
  if (error instanceof URIError) return new AppError("bad_request", "malformed URL encoding", { cause: error });
  return new AppError("bad_request", "bad request", { cause: error });
}

export function toHttpError(error: unknown): HttpErrorResponse {
  const appError = frameworkError(error) ?? toAppError(error);
  const headers: Record<string, string> = { ...appError.headers };
  if (appError.code === "unauthorized") headers["WWW-Authenticate"] = "Bearer";
  return { status: ERROR_CODES[appError.code].http, headers, body: errorBody(appError) };
}

export function sendError(res: Parameters<RequestHandler>[1], error: unknown): HttpErrorResponse {
  const mapped = toHttpError(error);
  res.status(mapped.status).set(mapped.headers).json(mapped.body);
  return mapped;
}

export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (error, req, res, next) => {
    // After the deadline answered, a late failure has nobody to tell; mid-stream, express cuts the connection.
    if (res.headersSent) return res.writableEnded ? undefined : next(error);
    const mapped = sendError(res, error);
    // Only method and path: never headers (keys) or bodies.
    if (mapped.status >= 500) logger.error({ err: error, method: req.method, path: req.path }, "request failed");
  };
}

/** JSON 404 for any path no route matched. */
export const notFoundHandler: RequestHandler = (req, res) => {
  sendError(res, new AppError("not_found", `no such endpoint: ${req.method} ${req.path.slice(0, 200)}`));
};
