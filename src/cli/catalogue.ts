// The compiled catalogue as the CLI sees it: the daemon's own loader, plus the selection of
// metrics by name that `tests` and `scan` share.
import type { Config } from "../config/config.js";
import { loadCatalogSnapshot } from "../services/load-catalog.js";
import { makeSnapshot, type CatalogSnapshot } from "../infer/catalog-snapshot.js";
import { CliError } from "./cli-error.js";

/** The catalogue as the daemon with the same configuration compiles it. */
export async function loadCatalogue(
  config: Pick<Config, "METRICS_DIR" | "METRICFLOW_DATABASE" | "anomalyDefaults">,
): Promise<CatalogSnapshot> {
  try {
    return await loadCatalogSnapshot(
      config.METRICS_DIR,
      new Date(),
      { metricflowDatabase: config.METRICFLOW_DATABASE },
      config.anomalyDefaults,
    );
  } catch (error) {
    throw new CliError(`cannot read the catalogue in ${config.METRICS_DIR}: ${(error as Error).message}`);
  }
}

/**
 * The snapshot narrowed to `names` (all metrics when empty): their IR and their tests, which for
 * a derived metric already include its inputs' tests, in the order asked. An unknown or invalid
 * name is a usage error.
 */
export function selectMetrics(snapshot: CatalogSnapshot, names: readonly string[]): CatalogSnapshot {
  if (names.length === 0) return snapshot;
  const known = new Set(snapshot.metrics.map((m) => m.name));
  for (const name of names) {
    if (known.has(name)) continue;
    const error = snapshot.errors.find((e) => e.metric === name);
    throw new CliError(error ? `metric "${name}" is invalid: ${error.file}: ${error.message}` : `unknown metric "${name}"`);
  }
  const wanted = [...new Set(names)];
  return makeSnapshot({
    metrics: wanted.map((name) => snapshot.metricsByName.get(name)!),
    tests: wanted.flatMap((name) => snapshot.testsByMetric.get(name) ?? []),
    errors: snapshot.errors,
    warnings: snapshot.warnings,
    compiled_at: snapshot.compiled_at,
  });
}
