// One error type for the whole service. Transports map `code` once each (HTTP, tRPC).

export const ERROR_CODES = {
  bad_request: { http: 400, trpc: "BAD_REQUEST" },
  unauthorized: { http: 401, trpc: "UNAUTHORIZED" },
  forbidden: { http: 403, trpc: "FORBIDDEN" },
  not_found: { http: 404, trpc: "NOT_FOUND" },
  conflict: { http: 409, trpc: "CONFLICT" },
  rate_limited: { http: 429, trpc: "TOO_MANY_REQUESTS" },
  internal: { http: 500, trpc: "INTERNAL_SERVER_ERROR" },
  unavailable: { http: 503, trpc: "SERVICE_UNAVAILABLE" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class AppError extends Error {
  readonly code: ErrorCode;
  /** extra headers a transport should send, e.g. Retry-After */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; headers?: Record<string, string> } = {}) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.headers = options.headers ?? {};
  }
}

export const notFound = (message: string) => new AppError("not_found", message);
export const badRequest = (message: string) => new AppError("bad_request", message);
export const unavailable = (message: string, cause?: unknown) => new AppError("unavailable", message, { cause });

/** Any thrown value as an AppError; unknown errors become `internal` without leaking their text. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError("internal", "internal error", { cause: error });
}

export function errorBody(error: AppError): { error: { code: ErrorCode; message: string } } {
  return { error: { code: error.code, message: error.message } };
}
