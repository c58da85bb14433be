// Catalogue files -> validated definitions plus errors. Pure: one bad metric is
// reported and skipped, the good ones in the same file and in other files still load.
import { checkDerivedInputs } from "./derived-inputs.js";
import { toDefinition } from "./to-definition.js";
import type { Catalog, CatalogError, CatalogFile, MetricDefinition } from "./types.js";
import { readMetricEntries } from "./yaml-entries.js";

function compareFiles(a: CatalogFile, b: CatalogFile): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
}

function rawName(raw: unknown): string | null {
  if (raw === null || typeof raw !== "object") return null;
  const name = (raw as Record<string, unknown>).name;
  return typeof name === "string" ? name : null;
}

function metricError(file: string, metric: string | null, label: string, message: string): CatalogError {
  return { metric, file, message: `${file}: ${label}: ${message}` };
}

export function parseCatalog(files: CatalogFile[]): Catalog {
  const errors: CatalogError[] = [];
  const candidates: MetricDefinition[] = [];
  const failed = new Set<string>();
  const seen = new Map<string, string>(); // name -> file of its first definition

  // Sorted by file name so that "the second duplicate" and the output order are stable.
  for (const file of [...files].sort(compareFiles)) {
    const { entries, errors: fileErrors } = readMetricEntries(file);
    errors.push(...fileErrors);
    entries.forEach((raw, index) => {
      const name = rawName(raw);
      const label = name === null ? `metrics[${index}]` : `metric ${JSON.stringify(name)}`;
      if (name !== null && seen.has(name)) {
        errors.push(metricError(file.file, name, label, `name: duplicate metric name, already defined in ${seen.get(name)}`));
        return;
      }
      if (name !== null) seen.set(name, file.file);
      const result = toDefinition(raw, file.file);
      if (result.ok) candidates.push(result.metric);
      else {
        if (name !== null) failed.add(name);
        for (const problem of result.problems) errors.push(metricError(file.file, name, label, problem));
      }
    });
  }

  const rejected = new Set<MetricDefinition>();
  for (const { metric, message } of checkDerivedInputs(candidates, failed)) {
    rejected.add(metric);
    errors.push(metricError(metric.file, metric.name, `metric ${JSON.stringify(metric.name)}`, message));
  }
  return { metrics: candidates.filter((m) => !rejected.has(m)), errors };
}
