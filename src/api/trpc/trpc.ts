// tRPC root: context from the request's Authorization header, and procedures that map every
// error to AppError codes and apply the same auth as REST (the endpoint table's `auth`).
import { initTRPC } from "@trpc/server";
import type { CreateExpressContextOptions } from "@trpc/server/adapters/express";
import type { Access, Authenticator } from "../auth.js";
import { answerDeadlineMs, timeoutError, type HttpLimits, type WriteLimiter } from "../limits.js";
import { formatTRPCError, toTRPCError } from "./trpc-errors.js";

export interface TrpcContext {
  authorization: string | undefined;
  authenticate: Authenticator;
  limitWrites: WriteLimiter;
  limits: HttpLimits;
}

export function contextFactory(authenticate: Authenticator, limitWrites: WriteLimiter, limits: HttpLimits) {
  return ({ req }: CreateExpressContextOptions): TrpcContext => ({
    authorization: req.headers.authorization,
    authenticate,
    limitWrites,
    limits,
  });
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
