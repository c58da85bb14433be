// Reads one catalogue file's YAML into plain values, one per document (`---`): MetricFlow's
// reference layout keeps one `semantic_model:` or `metric:` per document.
//
// Two parsers, one result. js-yaml (YAML 1.2 core schema, as `yaml`'s default) reads the common
// file, seven times faster: at 10,000 metrics `yaml`'s document model took a third of the
// catalogue load and most of its garbage. `yaml` reads what js-yaml refuses (its messages give
// line and column, and the tests hold them) and a file whose aliases expand past a bound (its
// toJS caps their expansion, so an alias bomb fails with its message instead of exhausting
// memory downstream). test/catalog/yaml-documents.test.ts holds both to the same values.
import { loadAll } from "js-yaml";
import { LineCounter, parseAllDocuments } from "yaml";
import { withInternedStrings, type Intern } from "../intern.js";
import type { CatalogError, CatalogFile } from "./types.js";

export function fileError(file: string, message: string): CatalogError {
  return { metric: null, file, message: `${file}: ${message}` };
}

type Documents = { documents: unknown[] } | { error: CatalogError };

/** An anchor (`&a`) or alias (`*a`) may stand here; `a * b` and `count(*)` do not count. */
const MAY_ALIAS = /[&*][^\s,[\]{}()]/;

/**
 * js-yaml shares an anchored value between its aliases instead of copying it, so parsing is
 * cheap whatever they expand to; what reads the values after walks every copy. A file of n
 * characters holds well under n values written out: more than 10 n once expanded is `yaml`'s
 * to judge (an alias bomb).
 */
function expandsWithin(documents: readonly unknown[], budget: number): boolean {
  let left = budget;
  const stack: unknown[] = [...documents];
  while (stack.length > 0) {
    const value = stack.pop();
    if (--left < 0) return false;
    if (Array.isArray(value)) for (const item of value as unknown[]) stack.push(item);
    else if (value !== null && typeof value === "object")
      for (const item of Object.values(value as Record<string, unknown>)) stack.push(item);
  }
  return true;
}

/**
 * Documents in file order; empty documents (a leading or trailing `---`) are dropped. With
 * `intern`, equal strings are shared across the files read with it (the compiled catalogue keeps
 * them: a column name would otherwise be a string per metric that names it).
 */
export function parseYamlDocuments(file: CatalogFile, intern?: Intern): Documents {
  const read = readDocuments(file);
  return intern && "documents" in read ? { documents: read.documents.map((document) => withInternedStrings(document, intern)) } : read;
}

function readDocuments(file: CatalogFile): Documents {
  let parsed: unknown[];
  try {
    parsed = loadAll(file.content);
  } catch {
    return parseWithYaml(file);
  }
  if (MAY_ALIAS.test(file.content) && !expandsWithin(parsed, 10 * file.content.length + 1000)) return parseWithYaml(file);
  return { documents: parsed.filter((value) => value !== null && value !== undefined) };
}

/** The same with `yaml` alone: the reference the fast path is held to. */
export function parseWithYaml(file: CatalogFile): Documents {
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
