// Reads one catalogue file's YAML into raw metric entries. A file that is not valid
// YAML, or has no `metrics:` list, yields one error naming the file (metric null).
import { LineCounter, parseDocument } from "yaml";
import type { CatalogError, CatalogFile } from "./types.js";

export interface FileEntries {
  entries: unknown[];
  errors: CatalogError[];
}

function fileError(file: string, message: string): CatalogError {
  return { metric: null, file, message: `${file}: ${message}` };
}

function parseYaml(file: CatalogFile): { value: unknown } | { error: CatalogError } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(file.content, { lineCounter, prettyErrors: false });
  const first = doc.errors[0];
  if (first) {
    const { line, col } = lineCounter.linePos(first.pos[0]);
    const reason = first.message.split("\n")[0];
    return { error: fileError(file.file, `invalid YAML at line ${line}, column ${col}: ${reason}`) };
  }
  try {
    // toJS enforces maxAliasCount, so an alias bomb fails here instead of exhausting memory.
    return { value: doc.toJS({ maxAliasCount: 100 }) };
  } catch (error) {
    return { error: fileError(file.file, `invalid YAML: ${(error as Error).message}`) };
  }
}

export function readMetricEntries(file: CatalogFile): FileEntries {
  const parsed = parseYaml(file);
  if ("error" in parsed) return { entries: [], errors: [parsed.error] };
  const root = parsed.value;
  if (root === null || root === undefined) return { entries: [], errors: [fileError(file.file, "empty file: expected a top-level metrics: list")] };
  if (typeof root !== "object" || Array.isArray(root)) {
    return { entries: [], errors: [fileError(file.file, "expected a mapping with a top-level metrics: list")] };
  }
  const errors: CatalogError[] = [];
  for (const key of Object.keys(root)) {
    if (key !== "metrics") errors.push(fileError(file.file, `${key}: unknown top-level field (expected metrics)`));
  }
  const metrics = (root as Record<string, unknown>).metrics;
  if (metrics === undefined) errors.push(fileError(file.file, "metrics: required"));
  else if (!Array.isArray(metrics)) errors.push(fileError(file.file, "metrics: expected a list"));
  return { entries: Array.isArray(metrics) ? metrics : [], errors };
}
