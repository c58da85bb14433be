// tRPC root: context from the request's Authorization header, and procedures that map every
// error to AppError codes and apply the same auth as REST (the endpoint table's `auth`).
import { initTRPC } from "@trpc/server";
import type { CreateExpressContextOptions } from "@trpc/server/adapters/express";
import { bearerToken, knownKey, type Access, type Authenticator } from "../auth.js";
import {
  answerDeadlineMs,
  answerJson,
  answerTooLarge,
  clientOf,
  timeoutError,
  type AuthThrottle,
  type HttpLimits,
  type WriteLimiter,
} from "../limits.js";
import { formatTRPCError, toTRPCError } from "./trpc-errors.js";

export interface TrpcContext {
  authorization: string | undefined;
  authenticate: Authenticator;
  limitWrites: WriteLimiter;
  limits: HttpLimits;
  /** Counts an answer against the request's size cap (a batch's calls together); throws past it. */
  countAnswer(answer: unknown, paged: boolean): void;
}

export interface ContextOptions {
  authenticate: Authenticator;
  limitWrites: WriteLimiter;
  limits: HttpLimits;
  throttle: AuthThrottle;
}

/**
 * Once per HTTP request (a batch's calls share it): a client refused for wrong keys is refused here,
 * before any call; a wrong key is counted once per request, however many calls it carries.
 */
export function contextFactory({ authenticate, limitWrites, limits, throttle }: ContextOptions) {
  return async ({ req }: CreateExpressContextOptions): Promise<TrpcContext> => {
    const authorization = req.headers.authorization;
    const client = clientOf(req);
    await throttle.check(client);
    if (bearerToken(authorization) !== null && !knownKey(authenticate, authorization)) await throttle.failed(client);
    let answered = 0;
    return {
      authorization,
      authenticate,
      limitWrites,
      limits,
      countAnswer(answer, paged) {
        const json = answerJson(answer);
        const bytes = typeof json === "string" ? Buffer.byteLength(json, "utf8") : json.length;
        answered += bytes;
        if (answered > limits.maxAnswerBytes) throw answerTooLarge(answered, limits.maxAnswerBytes, paged);
      },
    };
  };
}

const t = initTRPC.context<TrpcContext>().create({ errorFormatter: formatTRPCError });

export const router = t.router;

/** Outermost middleware: whatever failed below (input parsing, auth, service) leaves as a mapped TRPCError. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw toTRPCError(result.error);
  return result;
});

/** The same deadlines as REST: the procedure goes on (a scan finishes), the caller gets a 503. */
async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(timeoutError(ms / 1000)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The same auth as REST: `access` from the endpoint table; writes are counted against the key's
 * rate limit and get the longer deadline (they may wait for a scan).
 */
const guarded = (access: Access) =>
  t.procedure.use(mapErrors).use(async ({ ctx, next }) => {
    const write = access === "write";
    ctx.authenticate(ctx.authorization, access);
    if (write) await ctx.limitWrites(ctx.authorization);
    return withDeadline(next(), answerDeadlineMs(ctx.limits, write));
  });

export const procedures: Record<Access, ReturnType<typeof guarded>> = { read: guarded("read"), write: guarded("write") };

/** What every procedure's static type carries, as t.procedure would give it. */
export type ProcedureMeta = (typeof t)["_config"]["$types"]["meta"];
export type ProcedureErrorShape = (typeof t)["_config"]["$types"]["errorShape"];
