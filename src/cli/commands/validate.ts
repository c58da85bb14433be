// `validate`: the catalogue stage and the compiler, no servers. Exit 1 with the errors.
import { EXIT_FAILED, EXIT_OK } from "../cli-error.js";
import { loadCatalogue } from "../catalogue.js";
import type { CliContext } from "../context.js";
import { renderCatalogErrors, styleFor } from "../render.js";

export async function validateCommand(ctx: CliContext, options: { json?: boolean }): Promise<number> {
  const snapshot = await loadCatalogue(ctx.config.METRICS_DIR);
  const errors = snapshot.errors.map((e) => ({ metric: e.metric, file: e.file, message: e.message }));
  if (options.json) {
    ctx.stdout.write(`${JSON.stringify({ metrics: snapshot.metrics.length, tests: snapshot.tests.length, errors }, null, 2)}\n`);
  } else {
    ctx.stderr.write(renderCatalogErrors(errors, styleFor(ctx.stderr)));
    const verdict = errors.length === 0 ? "valid" : `${errors.length} error${errors.length === 1 ? "" : "s"}`;
    ctx.stdout.write(
      `${ctx.config.METRICS_DIR}: ${snapshot.metrics.length} metrics, ${snapshot.tests.length} inferred tests, ${verdict}\n`,
    );
  }
  return errors.length === 0 ? EXIT_OK : EXIT_FAILED;
}
