// Reads and compiles the catalogue once: files -> definitions -> IR -> inferred tests.
// Bad metrics are kept as errors (served by /v1/compiler/status); the good ones still run.
import { DEFAULT_PARSE_OPTIONS, parseCatalog, type ParseOptions } from "../catalog/parse-catalog.js";
import { readCatalogFiles } from "../catalog/read-catalog-files.js";
import { DEFAULT_ANOMALY_DEFAULTS, type AnomalyDefaults } from "../compile/anomaly-settings.js";
import { compileCatalog } from "../compile/compile.js";
import { inferCatalog } from "../infer/infer.js";
import { makeSnapshot, type CatalogSnapshot } from "../infer/catalog-snapshot.js";

export async function loadCatalogSnapshot(
  metricsDir: string,
  now: Date = new Date(),
  options: ParseOptions = DEFAULT_PARSE_OPTIONS,
  anomalyDefaults: AnomalyDefaults = DEFAULT_ANOMALY_DEFAULTS,
): Promise<CatalogSnapshot> {
  const files = await readCatalogFiles(metricsDir);
  const catalog = parseCatalog(files, options);
  const metrics = compileCatalog(catalog.metrics, anomalyDefaults);
  return makeSnapshot({ metrics, tests: inferCatalog(metrics), errors: catalog.errors, warnings: catalog.warnings, compiled_at: now });
}
