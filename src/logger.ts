import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger };

const MAX_CAUSE_DEPTH = 5;

/** The stack's frames, without its first line(s), which repeat `Name: message`. */
function framesOf(error: Error): string | undefined {
  const stack = error.stack;
  if (!stack) return undefined;
  const header = `${error.name}: ${error.message}`;
  if (stack.startsWith(header)) return stack.slice(header.length).replace(/^\n/, "");
  return stack.slice(stack.indexOf("\n    at ") + 1);
}

/**
 * Errors here wrap their cause's text into their own message ("warehouse "default" unavailable:
 * <the client's error>: connect ECONNREFUSED ..."). pino's default serializer appends every
 * cause's message again, and prints every cause's stack with its message, so one outage read
 * three times. This one prints each piece of text once: the message, the stack frames, and a
 * cause only with what its parent's message does not already say.
 */
export function serializeError(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error)) return error;
  const out: Record<string, unknown> = { type: error.name, message: error.message };
  // Own data fields (code, kind, clickhouseCode...): short values only, and no text the message
  // already says (WarehouseError.detail is its message without the context).
  for (const [key, value] of Object.entries(error)) {
    if (key === "cause" || key === "name") continue;
    if (typeof value === "string" ? !error.message.includes(value) : typeof value === "number" || typeof value === "boolean")
      out[key] = value;
  }
  const frames = framesOf(error);
  if (frames) out.stack = frames;
  const cause = error.cause;
  if (cause !== undefined && depth < MAX_CAUSE_DEPTH) {
    const serialized = serializeError(cause, depth + 1);
    if (cause instanceof Error && error.message.includes(cause.message) && typeof serialized === "object" && serialized !== null) {
      delete (serialized as Record<string, unknown>).message;
    }
    out.cause = serialized;
  }
  return out;
}

/**
 * The one logger of the process; keys and passwords are redacted wherever they appear.
 * The daemon logs to stdout; CLI commands pass stderr, keeping stdout for their output.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    serializers: { err: serializeError },
    redact: { paths: ["req.headers.authorization", "*.password", "*.apiKey", "authorization"], censor: "[redacted]" },
  };
  return destination ? pino(options, destination) : pino(options);
}
