// tRPC root: context from the request's Authorization header, and procedures that map every
// error to AppError codes and apply the same auth as REST (mutations need a read-write key).
import { initTRPC } from "@trpc/server";
import type { CreateExpressContextOptions } from "@trpc/server/adapters/express";
import type { Authenticator } from "../auth.js";
import { formatTRPCError, toTRPCError } from "./trpc-errors.js";

export interface TrpcContext {
  authorization: string | undefined;
  authenticate: Authenticator;
}

export function contextFactory(authenticate: Authenticator) {
  return ({ req }: CreateExpressContextOptions): TrpcContext => ({ authorization: req.headers.authorization, authenticate });
}

const t = initTRPC.context<TrpcContext>().create({ errorFormatter: formatTRPCError });

export const router = t.router;

/** Outermost middleware: whatever failed below (input parsing, auth, service) leaves as a mapped TRPCError. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw toTRPCError(result.error);
  return result;
});

export const protectedProcedure = t.procedure.use(mapErrors).use(({ ctx, type, next }) => {
  ctx.authenticate(ctx.authorization, type === "mutation" ? "write" : "read");
  return next();
});
