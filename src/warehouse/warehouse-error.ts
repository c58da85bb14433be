// One error type for both engines, so callers can tell a transient outage (connection,
// timeout, cancel) from a query the warehouse refused, without parsing engine-specific text.

export type WarehouseErrorKind =
  /** could not reach the warehouse (refused, DNS, reset, auth): transient */
  | "connection"
  /** max_execution_time or the client-side guard fired */
  | "timeout"
  /** the caller's AbortSignal fired */
  | "aborted"
  /** the server refused more work for now (TOO_MANY_SIMULTANEOUS_QUERIES): transient */
  | "overloaded"
  /** refused before reaching ClickHouse (not a single SELECT) */
  | "rejected"
  /** ClickHouse ran the query and reported an error (syntax, unknown column, readonly...) */
  | "query";

export class WarehouseError extends Error {
  override name = "WarehouseError";
  /**
   * the message without its "<warehouse>: query <id> failed: " context, and without 26.x's
   * ": while executing '<plan step>'" (it shows block sizes, which vary with the data), e.g.
   * "ClickHouse error 349: Cannot convert NULL value to non-Nullable type (CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN)"
   */
  readonly detail: string;
  constructor(
    message: string,
    readonly kind: WarehouseErrorKind,
    /** ClickHouse's numeric error code when it reported one, e.g. 159 TIMEOUT_EXCEEDED */
    readonly clickhouseCode: number | null = null,
    options?: { cause?: unknown; detail?: string },
  ) {
    super(message, options);
    this.detail = options?.detail ?? message;
  }
}

const TIMEOUT_CODES = new Set([159, 160, 394]); // TIMEOUT_EXCEEDED, TOO_SLOW, QUERY_WAS_CANCELLED
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EPIPE",
  "ECONNABORTED",
]);
const AUTH_CODES = new Set([192, 193, 194, 516]); // UNKNOWN_USER, WRONG_PASSWORD, REQUIRED_PASSWORD, AUTHENTICATION_FAILED
const OVERLOAD_CODES = new Set([202]); // TOO_MANY_SIMULTANEOUS_QUERIES

/**
 * ClickHouse error text without the version-specific wrapping:
 * 18.16 "Code: 62, e.displayText() = DB::Exception: Syntax error ..., e.what() = DB::Exception"
 * 26.7  "Code: 62. DB::Exception: Syntax error .... (SYNTAX_ERROR) (version 26.7...)"
 */
export function cleanClickHouseMessage(raw: string): { code: number | null; text: string } {
  const code = /Code:\s*(\d+)/.exec(raw);
  let text = raw.replace(/^[\s\S]*?DB::Exception:\s*/, "");
  text = text.replace(/,\s*e\.what\(\)\s*=\s*DB::Exception\s*$/, "");
  text = text.replace(/\s*\(version [^)]*\)\s*$/, "");
  text = text.replace(/\s+/g, " ").trim();
  if (text.length > 1000) text = `${text.slice(0, 1000)}...`;
  return { code: code ? Number(code[1]) : null, text: text || raw.trim() };
}

/** Maps anything thrown by an engine to a WarehouseError; `secrets` are scrubbed from the text. */
export function toWarehouseError(error: unknown, context: string, secrets: string[] = []): WarehouseError {
  if (error instanceof WarehouseError) return error;
  const err = error as { message?: unknown; code?: unknown; name?: unknown };
  const raw = typeof err?.message === "string" ? err.message : String(error);
  const { code, text } = cleanClickHouseMessage(raw);
  let kind: WarehouseErrorKind = "query";
  if (err?.name === "AbortError" || /aborted/i.test(raw)) kind = "aborted";
  else if (typeof err?.code === "string" && CONNECTION_CODES.has(err.code)) kind = "connection";
  else if (/socket hang up|connect E[A-Z]+|Timeout error/i.test(raw)) kind = /Timeout error/i.test(raw) ? "timeout" : "connection";
  else if (code !== null && TIMEOUT_CODES.has(code)) kind = "timeout";
  else if (code !== null && AUTH_CODES.has(code)) kind = "connection";
  else if (code !== null && OVERLOAD_CODES.has(code)) kind = "overloaded";
  const scrub = (value: string) => secrets.reduce((out, secret) => (secret ? out.split(secret).join("[redacted]") : out), value);
  const detail = `${code !== null ? `ClickHouse error ${code}: ` : ""}${text}`;
  const concise = detail.replace(/: while executing .*?(?:\.? (\([A-Z_]+\)))?$/, (_all, name?: string) => (name ? ` ${name}` : ""));
  return new WarehouseError(scrub(`${context}: ${detail}`), kind, code, { cause: error, detail: scrub(concise) });
}
