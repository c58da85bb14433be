// One procedure per REST endpoint: same zod schemas, same service calls, same auth, same output.
import type { Services } from "../../services/types.js";
import { metricNameInput, scanIdInput, scanInput, tableInput } from "../schemas.js";
import { protectedProcedure as p, router } from "./trpc.js";

export function createAppRouter({ validation, compiler, reliability }: Services) {
  return router({
    validation: router({
      tests: p.query(() => validation.listTests()),
    }),
    semanticTests: router({
      run: p.mutation(() => validation.runTests()),
    }),
    compiler: router({
      ir: p.query(() => compiler.status()),
      status: p.query(() => compiler.status()),
      irByName: p.input(metricNameInput).query(({ input }) => compiler.irByName(input.name)),
    }),
    reliability: router({
      status: p.query(() => reliability.status()),
      statusByName: p.input(metricNameInput).query(({ input }) => reliability.metricStatus(input.name)),
      affectedBy: p.input(tableInput).query(({ input }) => reliability.affectedBy(input.table)),
      scan: p.input(scanInput.optional()).mutation(({ input }) => reliability.triggerScan({ wait: input?.wait ?? false })),
      scanById: p.input(scanIdInput).query(({ input }) => reliability.getScan(input.id)),
    }),
  });
}

export type AppRouter = ReturnType<typeof createAppRouter>;
