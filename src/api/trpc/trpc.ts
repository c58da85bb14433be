// tRPC root: context from the request's Authorization header, and procedures that map every
// error to AppError codes and apply the same auth as REST (mutations need a read-write key).
import { initTRPC } from "@trpc/server";
import type { CreateExpressContextOptions } from "@trpc/server/adapters/express";
import type { Authenticator } from "../auth.js";
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

export const protectedProcedure = t.procedure.use(mapErrors).use(async ({ ctx, type, next }) => {
  const write = type === "mutation";
  ctx.authenticate(ctx.authorization, write ? "write" : "read");
  if (write) await ctx.limitWrites(ctx.authorization);
  return withDeadline(next(), answerDeadlineMs(ctx.limits, write));
});
