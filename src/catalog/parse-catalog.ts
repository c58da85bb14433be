// Catalogue files -> validated definitions plus errors and warnings. Pure: one bad metric is
// reported and skipped, the good ones in the same file and in other files still load. Files
// of our own format and dbt MetricFlow files may sit side by side; both yield the same
// definitions.
import { checkDerivedInputs } from "./derived-inputs.js";
import { fileForm, isDbtProjectFile } from "./file-form.js";
import { nameOf } from "./mapping.js";
import { readMetricFlowProject, type MetricFlowDocument } from "./metricflow/read-project.js";
import { toDefinition } from "./to-definition.js";
import type { Catalog, CatalogError, CatalogFile, CatalogWarning, DeclaredTest, MetricDefinition } from "./types.js";
import { createIntern } from "../intern.js";
import { parseYamlDocuments } from "./yaml-documents.js";
import { readMetricEntries } from "./yaml-entries.js";

export interface ParseOptions {
  /** ClickHouse database of MetricFlow `ref('x')` models and `$source_schema` placeholders */
  metricflowDatabase: string;
}

export const DEFAULT_PARSE_OPTIONS: ParseOptions = { metricflowDatabase: "default" };

function compareFiles(a: CatalogFile, b: CatalogFile): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
}

function metricError(file: string, metric: string | null, label: string, message: string): CatalogError {
  return { metric, file, message: `${file}: ${label}: ${message}` };
}

/** Declared (dbt) tests go to every structured metric that reads their table, base or joined. */
function attachDeclaredTests(metrics: MetricDefinition[], byTable: ReadonlyMap<string, DeclaredTest[]>): MetricDefinition[] {
  if (byTable.size === 0) return metrics;
  return metrics.map((metric) => {
    if (metric.kind !== "structured") return metric;
    const tables = [metric.table, ...metric.joins.map((j) => j.table)];
    const declared = tables.flatMap((table) => byTable.get(table) ?? []);
    return declared.length === 0 ? metric : { ...metric, declared_tests: declared };
  });
}

export function parseCatalog(files: CatalogFile[], options: ParseOptions = DEFAULT_PARSE_OPTIONS): Catalog {
  const errors: CatalogError[] = [];
  const warnings: CatalogWarning[] = [];
  const candidates: MetricDefinition[] = [];
  const failed = new Set<string>();
  const seen = new Map<string, string>(); // name -> file of its first definition
  const metricflow: MetricFlowDocument[] = [];
  const intern = createIntern();

  // Sorted by file name so that "the second duplicate" and the output order are stable.
  for (const file of [...files].sort(compareFiles)) {
    if (isDbtProjectFile(file.file)) continue; // dbt_project.yml, packages.yml...: read by name, nothing for us
    const parsed = parseYamlDocuments(file, intern);
    if ("error" in parsed) {
      errors.push(parsed.error);
      continue;
    }
    const form = fileForm(parsed.documents);
    if (form === "unknown") {
      warnings.push({
        file: file.file,
        message: `${file.file}: skipped: neither a metrics: list nor a dbt/MetricFlow file (no metrics, semantic_models, models...)`,
      });
      continue;
    }
    if (form === "metricflow") {
      parsed.documents.forEach((document, index) => metricflow.push({ file: file.file, index, document }));
      continue;
    }
    const { entries, errors: fileErrors } = readMetricEntries(file.file, parsed.documents);
    errors.push(...fileErrors);
    entries.forEach((raw, index) => {
      const name = nameOf(raw);
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

  const project = readMetricFlowProject(metricflow, options);
  errors.push(...project.errors);
  warnings.push(...project.warnings);
  for (const name of project.failed) if (!seen.has(name)) failed.add(name);
  for (const metric of project.metrics) {
    const first = seen.get(metric.name);
    if (first !== undefined) {
      errors.push(
        metricError(
          metric.file,
          metric.name,
          `metric ${JSON.stringify(metric.name)}`,
          `name: duplicate metric name, already defined in ${first}`,
        ),
      );
      continue;
    }
    seen.set(metric.name, metric.file);
    candidates.push(metric);
  }

  const rejected = new Set<MetricDefinition>();
  for (const { metric, message } of checkDerivedInputs(candidates, failed)) {
    rejected.add(metric);
    errors.push(metricError(metric.file, metric.name, `metric ${JSON.stringify(metric.name)}`, message));
  }
  const metrics = attachDeclaredTests(
    candidates.filter((m) => !rejected.has(m)),
    project.declaredTests,
  );
  return { metrics, errors, warnings };
}
