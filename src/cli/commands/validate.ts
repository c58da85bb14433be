// `validate`: the catalogue stage and the compiler, no servers. Exit 1 with the errors; warnings
// are listed (stderr, or `warnings` in --json) and never fail it.
import { EXIT_FAILED, EXIT_OK } from "../cli-error.js";
import { loadCatalogue } from "../catalogue.js";
import type { CliContext } from "../context.js";
import { renderCatalogErrors, styleFor } from "../render.js";

export async function validateCommand(ctx: CliContext, options: { json?: boolean }): Promise<number> {
  const snapshot = await loadCatalogue(ctx.config);
  const errors = snapshot.errors.map((e) => ({ metric: e.metric, file: e.file, message: e.message }));
  // Warnings never fail validation, but a pipeline reading the JSON sees what was not run or read.
  const warnings = snapshot.warnings.map((w) => ({ file: w.file, message: w.message }));
  if (options.json) {
    const body = { metrics: snapshot.metrics.length, tests: snapshot.tests.length, errors, warnings };
    ctx.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  } else {
    ctx.stderr.write(renderCatalogErrors(errors, styleFor(ctx.stderr)));
    for (const warning of warnings) ctx.stderr.write(`warning: ${warning.message}\n`);
    const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
    const verdict = [
      errors.length === 0 ? "valid" : plural(errors.length, "error"),
      ...(warnings.length > 0 ? [plural(warnings.length, "warning")] : []),
    ].join(", ");
    ctx.stdout.write(
      `${ctx.config.METRICS_DIR}: ${snapshot.metrics.length} metrics, ${snapshot.tests.length} inferred tests, ${verdict}\n`,
    );
  }
  return errors.length === 0 ? EXIT_OK : EXIT_FAILED;
}
