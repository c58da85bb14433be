// Reads one catalogue file's YAML into plain values, one per document (`---`): MetricFlow's
// reference layout keeps one `semantic_model:` or `metric:` per document.
import { LineCounter, parseAllDocuments } from "yaml";
import type { CatalogError, CatalogFile } from "./types.js";

export function fileError(file: string, message: string): CatalogError {
  return { metric: null, file, message: `${file}: ${message}` };
}

/** Documents in file order; empty documents (a leading or trailing `---`) are dropped. */
export function parseYamlDocuments(file: CatalogFile): { documents: unknown[] } | { error: CatalogError } {
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(file.content, { lineCounter, prettyErrors: false });
  const docs = Array.isArray(parsed) ? parsed : [];
  const documents: unknown[] = [];
  for (const doc of docs) {
    const first = doc.errors[0];
    if (first) {
      const { line, col } = lineCounter.linePos(first.pos[0]);
      const reason = first.message.split("\n")[0];
      return { error: fileError(file.file, `invalid YAML at line ${line}, column ${col}: ${reason}`) };
    }
    try {
      // toJS enforces maxAliasCount, so an alias bomb fails here instead of exhausting memory.
      const value: unknown = doc.toJS({ maxAliasCount: 100 });
      if (value !== null && value !== undefined) documents.push(value);
    } catch (error) {
      return { error: fileError(file.file, `invalid YAML: ${(error as Error).message}`) };
    }
  }
  return { documents };
}
