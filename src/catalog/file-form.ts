// Which of the known forms a catalogue file is: our own `metrics:` list, a dbt / MetricFlow
// file (a dbt project's model files, or MetricFlow's one-object-per-document layout), or
// neither. Decided from the top-level keys alone, so a file of another tool that happens to
// sit in METRICS_DIR (dbt_project.yml, a Helm values file) is a warning, never fatal.
import { isMapping } from "./mapping.js";

/** Top-level keys of dbt property files and of MetricFlow's per-document layout. */
export const DBT_KEYS = new Set([
  "semantic_models",
  "semantic_model",
  "metric",
  "saved_queries",
  "saved_query",
  "project_configuration",
  "models",
  "sources",
  "seeds",
  "snapshots",
  "macros",
  "exposures",
  "analyses",
  "groups",
  "unit_tests",
  "data_tests",
  "exports",
]);

/** dbt's own project files: known, and nothing in them defines a metric or a test. */
const DBT_PROJECT_FILES = new Set([
  "dbt_project.yml",
  "packages.yml",
  "dependencies.yml",
  "selectors.yml",
  "profiles.yml",
  "package-lock.yml",
]);

export function isDbtProjectFile(file: string): boolean {
  return DBT_PROJECT_FILES.has(file.slice(file.lastIndexOf("/") + 1));
}

export type FileForm = "ours" | "metricflow" | "unknown";

/** dbt metric entries always carry `type` (simple, ratio...) or `type_params`; ours never do. */
function looksLikeDbtMetrics(value: unknown): boolean {
  return Array.isArray(value) && value.some((entry) => isMapping(entry) && ("type_params" in entry || "type" in entry));
}

export function fileForm(documents: unknown[]): FileForm {
  const mappings = documents.filter(isMapping);
  if (mappings.some((doc) => Object.keys(doc).some((key) => DBT_KEYS.has(key)) || looksLikeDbtMetrics(doc.metrics))) return "metricflow";
  if (documents.length === 0 || mappings.some((doc) => "metrics" in doc)) return "ours";
  // Not a mapping at all (a list, a scalar): our reader names the problem as an error.
  if (mappings.length === 0) return "ours";
  return "unknown";
}
