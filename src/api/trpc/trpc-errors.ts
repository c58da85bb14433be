// AppError -> tRPC, in one place: the TRPCError code comes from the shared code table, and
// the errorFormatter puts the AppError code string in `data.appCode` (REST's `error.code`).
import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { AppError, ERROR_CODES, toAppError, type ErrorCode } from "../../errors/app-error.js";
import { MAX_BATCH_CALLS } from "../limits.js";
import { invalidInput } from "../schemas.js";

/** tRPC's message for a batch longer than maxBatchSize (http-app.ts), said more usefully. */
const BATCH_TOO_LONG = "Batch call exceeds maximum size";

const APP_CODE_BY_TRPC = new Map<string, ErrorCode>(
  (Object.entries(ERROR_CODES) as [ErrorCode, (typeof ERROR_CODES)[ErrorCode]][]).map(([code, v]) => [v.trpc, code]),
);

const hasIssues = (e: unknown): e is { issues: { path?: PropertyKey[]; message: string }[] } =>
  typeof e === "object" && e !== null && Array.isArray((e as { issues?: unknown }).issues);

/** The AppError behind any error a procedure produced (schema failures become bad_request). */
export function appErrorOf(error: unknown): AppError {
  if (error instanceof TRPCError) {
    if (error.cause instanceof AppError) return error.cause;
    if (hasIssues(error.cause)) return invalidInput(error.cause.issues);
    if (error.message === BATCH_TOO_LONG) {
      return new AppError("bad_request", `a tRPC batch may hold at most ${MAX_BATCH_CALLS} calls: send the rest in further requests`, {
        cause: error,
      });
    }
    const code = APP_CODE_BY_TRPC.get(error.code);
    // tRPC's own client errors (unknown procedure, bad batch, wrong method, ...) keep their message.
    if (code && code !== "internal") return new AppError(code, error.message, { cause: error });
    if (getHTTPStatusCodeFromError(error) < 500) return new AppError("bad_request", error.message, { cause: error });
    return toAppError(error.cause ?? error);
  }
  return toAppError(error);
}

export function toTRPCError(error: unknown): TRPCError {
  const appError = appErrorOf(error);
  return new TRPCError({ code: ERROR_CODES[appError.code].trpc, message: appError.message, cause: appError });
}

interface ShapeLike {
  message: string;
  code: number;
  data: { code: string; httpStatus: number; path?: string; stack?: string };
}

export function formatTRPCError<S extends ShapeLike>({ shape, error }: { shape: S; error: TRPCError }) {
  const appError = appErrorOf(error);
  // No stack traces in responses, even when NODE_ENV=development.
  const { stack: _stack, ...data } = shape.data;
  // tRPC's own request errors (415 content type, 413 body size, 405 method) are our bad_request:
  // the envelope's codes follow the AppError, and responseMeta (http-app.ts) the HTTP status.
  const trpcCode = ERROR_CODES[appError.code].trpc;
  return {
    ...shape,
    code: TRPC_ERROR_CODES_BY_KEY[trpcCode],
    message: appError.message,
    data: { ...data, code: trpcCode, httpStatus: ERROR_CODES[appError.code].http, appCode: appError.code },
  };
}
