// `tests`: the inferred tests, as GET /v1/validation/tests lists them (same service function).
import { testListing } from "../../services/validation-service.js";
import { EXIT_OK } from "../cli-error.js";
import { loadCatalogue, selectMetrics } from "../catalogue.js";
import type { CliContext } from "../context.js";
import { renderTests, styleFor } from "../render.js";

export async function testsCommand(ctx: CliContext, options: { metric: string[]; json?: boolean }): Promise<number> {
  const snapshot = selectMetrics(await loadCatalogue(ctx.config.METRICS_DIR), options.metric);
  const listing = testListing(snapshot);
  ctx.stdout.write(options.json ? `${JSON.stringify(listing, null, 2)}\n` : renderTests(listing.tests, styleFor(ctx.stdout)));
  return EXIT_OK;
}
