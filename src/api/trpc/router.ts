// The tRPC router, generated from the endpoint table (../endpoints.ts): one procedure per entry,
// named by its key (`reliability.statusByName` is router `reliability`, procedure `statusByName`),
// with the entry's input schema, auth and service call. Its static type (AppRouter) is computed
// from the table, so @trpc/client infers every input and output as if written by hand.
import type { AnyTRPCProcedure, TRPCMutationProcedure, TRPCQueryProcedure } from "@trpc/server";
import type { z } from "zod";
import type { Services } from "../../services/types.js";
import { inputIsOptional, splitProcedureName, takesNoInput, type AnyEndpoint, type EndpointTable } from "../endpoint.js";
import { endpoints } from "../endpoints.js";
import { procedures, router, type ProcedureErrorShape, type ProcedureMeta, type TrpcContext } from "./trpc.js";

/** What a caller passes: nothing for `noInput`, possibly nothing when `{}` is valid, else the object. */
type InputOf<E extends AnyEndpoint> = [keyof E["input"]["shape"]] extends [never]
  ? void
  : object extends z.input<E["input"]>
    ? z.input<E["input"]> | undefined
    : z.input<E["input"]>;

type Def<E extends AnyEndpoint> = {
  input: InputOf<E>;
  output: Awaited<ReturnType<E["call"]>>;
  meta: ProcedureMeta;
  errorShape: ProcedureErrorShape;
};

export type ProcedureOf<E extends AnyEndpoint> = E["method"] extends "GET" ? TRPCQueryProcedure<Def<E>> : TRPCMutationProcedure<Def<E>>;

type NamespaceOf<K> = K extends `${infer N}.${string}` ? N : never;

/** { "reliability.statusByName": E } -> { reliability: { statusByName: ProcedureOf<E> } } */
export type RouterRecordOf<T extends EndpointTable> = {
  [N in NamespaceOf<keyof T>]: {
    [K in keyof T as K extends `${N}.${infer P}` ? P : never]: T[K] extends AnyEndpoint ? ProcedureOf<T[K]> : never;
  };
};

function procedureOf(e: AnyEndpoint, services: Services): AnyTRPCProcedure {
  const base = procedures[e.auth];
  const paged = "limit" in e.input.shape;
  // An optional input arrives as undefined; the service gets {} (no filter, no page), as REST does.
  const resolve = async ({ input, ctx }: { input: unknown; ctx: TrpcContext }) => {
    const answer = await e.call(services, (input ?? {}) as Record<string, unknown>);
    ctx.countAnswer(answer, paged);
    return answer;
  };
  const built = takesNoInput(e) ? base : base.input(inputIsOptional(e) ? e.input.optional() : e.input);
  return e.method === "GET" ? built.query(resolve) : built.mutation(resolve);
}

/** The router of any endpoint table (tests build one from a table with an extra entry). */
export function routerOf<T extends EndpointTable>(table: T, services: Services) {
  const record: Record<string, Record<string, AnyTRPCProcedure>> = {};
  for (const [name, e] of Object.entries(table)) {
    const [namespace, procedure] = splitProcedureName(name);
    (record[namespace] ??= {})[procedure] = procedureOf(e, services);
  }
  // The one cast: the record built above, entry by entry, is what RouterRecordOf<T> describes.
  return router(record as unknown as RouterRecordOf<T>);
}

export function createAppRouter(services: Services) {
  return routerOf(endpoints, services);
}

export type AppRouter = ReturnType<typeof createAppRouter>;
