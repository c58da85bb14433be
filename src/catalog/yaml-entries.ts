// Our own format's file shape: one mapping with a top-level `metrics:` list of entries.
// A file that is not valid YAML, or has no `metrics:` list, yields one error naming the file.
import { isMapping } from "./mapping.js";
import type { CatalogError } from "./types.js";
import { fileError } from "./yaml-documents.js";

export interface FileEntries {
  entries: unknown[];
  errors: CatalogError[];
}

export function readMetricEntries(file: string, documents: unknown[]): FileEntries {
  if (documents.length === 0) return { entries: [], errors: [fileError(file, "empty file: expected a top-level metrics: list")] };
  if (documents.length > 1) return { entries: [], errors: [fileError(file, "expected one YAML document with a top-level metrics: list")] };
  const root = documents[0];
  if (!isMapping(root)) return { entries: [], errors: [fileError(file, "expected a mapping with a top-level metrics: list")] };
  const errors: CatalogError[] = [];
  for (const key of Object.keys(root)) {
    if (key !== "metrics") errors.push(fileError(file, `${key}: unknown top-level field (expected metrics)`));
  }
  const metrics = root.metrics;
  if (metrics === undefined) errors.push(fileError(file, "metrics: required"));
  else if (!Array.isArray(metrics)) errors.push(fileError(file, "metrics: expected a list"));
  return { entries: Array.isArray(metrics) ? metrics : [], errors };
}
