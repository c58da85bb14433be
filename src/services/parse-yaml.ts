// The catalogue's YAML, parsed in worker threads: at 10,000 metrics (2.4 MB of YAML) parsing is
// about half of the start-up's catalogue load, files parse independently, and the parser's
// short-lived syntax trees are collected in the workers' own heaps, whose young generation is
// sized for them (the daemon's is 8 MB: there, garbage collection took a third of the load).
// A worker that fails leaves its files to the main thread, so the result is always what
// parseYamlDocuments gives.
import os from "node:os";
import { Worker } from "node:worker_threads";
import type { CatalogFile } from "../catalog/types.js";
import { parseYamlDocuments, type ParsedYaml } from "../catalog/yaml-documents.js";

/** Below this much YAML a thread costs more to start than it saves. */
export const PARALLEL_MIN_BYTES = 256 * 1024;
const MAX_THREADS = 4;
/** The workers' young generation: a parse of 1 MB of YAML allocates hundreds of MB that die young. */
const YOUNG_GENERATION_MB = Number(process.env.YAML_YOUNG_MB ?? 32);

const fromSource = import.meta.url.endsWith(".ts");

/** The worker: the compiled .js file next to this one, or from source (tsx, vitest) the .ts file through tsx. */
function startWorker(files: CatalogFile[]): Worker {
  const entry = new URL(`./yaml-thread${fromSource ? ".ts" : ".js"}`, import.meta.url);
  const options = { workerData: files, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } };
  if (!fromSource) return new Worker(entry, options);
  const boot = `const { register } = await import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}); register(); await import(${JSON.stringify(entry.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), options);
}

/** One worker over `files`; null when it could not start or failed. */
export function parseInWorker(files: CatalogFile[]): Promise<[string, ParsedYaml][] | null> {
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = startWorker(files);
    } catch {
      resolve(null);
      return;
    }
    worker.once("message", (parsed: [string, ParsedYaml][]) => resolve(parsed));
    worker.once("error", () => resolve(null));
    worker.once("exit", () => resolve(null)); // no-op once resolved
  });
}

/** Files split into `parts` shares of about equal size (largest first onto the lightest share). */
function shares(files: CatalogFile[], parts: number): CatalogFile[][] {
  const out = Array.from({ length: parts }, () => ({ bytes: 0, files: [] as CatalogFile[] }));
  for (const file of [...files].sort((a, b) => b.content.length - a.content.length)) {
    const lightest = out.reduce((min, share) => (share.bytes < min.bytes ? share : min));
    lightest.files.push(file);
    lightest.bytes += file.content.length;
  }
  return out.map((share) => share.files);
}

/** Every file's parseYamlDocuments result, by file name. */
export async function parseYamlFiles(
  files: CatalogFile[],
  threads = Math.min(os.availableParallelism(), MAX_THREADS),
): Promise<Map<string, ParsedYaml>> {
  const bytes = files.reduce((sum, file) => sum + file.content.length, 0);
  if (bytes < PARALLEL_MIN_BYTES || files.length === 0) return new Map(files.map((file) => [file.file, parseYamlDocuments(file)]));
  const pending = shares(files, Math.max(1, Math.min(threads, files.length))).map((share) =>
    parseInWorker(share).then((parsed) => ({ share, parsed })),
  );
  const result = new Map<string, ParsedYaml>();
  for (const { share, parsed } of await Promise.all(pending)) {
    if (parsed) for (const [file, documents] of parsed) result.set(file, documents);
    else for (const file of share) result.set(file.file, parseYamlDocuments(file));
  }
  return result;
}
