// Every failure that leaves the store is a StoreError with a short, credential-free message.
// Callers (scan service, reliability service) turn it into a 503; nothing here crashes the process.

export class StoreError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "StoreError";
  }
}

/** Hides the password of any connection URL that a driver message might echo. */
export function redactUrls(text: string): string {
  return text.replace(/(\w+:\/\/[^:/@\s]*):[^@\s]*@/g, "$1:***@");
}

/**
 * The message of a driver or Prisma error without Prisma's code frame. With errorFormat "minimal"
 * Prisma still prefixes "Invalid `x()` invocation:"; the useful part is the last non-empty line.
 */
export function describeError(error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const lines = raw
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const last = lines.at(-1) ?? (error instanceof Error ? error.name : "unknown error");
  return redactUrls(last);
}

/** Runs a store operation, rethrowing any failure as a StoreError naming the operation. */
export async function guard<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof StoreError) throw error;
    throw new StoreError(`store ${operation} failed: ${describeError(error)}`, { cause: error });
  }
}
