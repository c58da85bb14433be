// One procedure per REST endpoint: same zod schemas, same service calls, same auth, same output.
import type { Services } from "../../services/types.js";
import { irListingQuery, metricNameInput, scanIdInput, scanInput, statusListingQuery, tableInput, testListingQuery } from "../schemas.js";
import { protectedProcedure as p, router } from "./trpc.js";

export function createAppRouter({ validation, compiler, reliability }: Services) {
  return router({
    validation: router({
      tests: p.input(testListingQuery.optional()).query(({ input }) => validation.listTests(input ?? {})),
    }),
    semanticTests: router({
      run: p.mutation(() => validation.runTests()),
    }),
    compiler: router({
      ir: p.input(irListingQuery.optional()).query(({ input }) => compiler.status(input ?? {})),
      status: p.input(irListingQuery.optional()).query(({ input }) => compiler.status(input ?? {})),
      irByName: p.input(metricNameInput).query(({ input }) => compiler.irByName(input.name)),
    }),
    reliability: router({
      status: p.input(statusListingQuery.optional()).query(({ input }) => reliability.status(input ?? {})),
      statusByName: p.input(metricNameInput).query(({ input }) => reliability.metricStatus(input.name)),
      affectedBy: p.input(tableInput).query(({ input }) => reliability.affectedBy(input.table)),
      scan: p.input(scanInput.optional()).mutation(({ input }) => reliability.triggerScan({ wait: input?.wait ?? false })),
      scanById: p.input(scanIdInput).query(({ input }) => reliability.getScan(input.id)),
    }),
  });
}

export type AppRouter = ReturnType<typeof createAppRouter>;
