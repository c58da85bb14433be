// The catalogue stage's only I/O: the *.yaml / *.yml files of one directory.
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { CatalogFile } from "./types.js";

const YAML_FILE = /\.ya?ml$/i;

/**
 * Files sorted by name, not recursive. Dotfiles are skipped: a Kubernetes ConfigMap
 * mount keeps `..data` links beside the real files, which are themselves symlinks.
 * `file` is "<directory name>/<file name>" (e.g. "metrics/shop.yaml"): short, stable
 * across machines, and no absolute path leaks into API error messages.
 */
export async function readCatalogFiles(dir: string): Promise<CatalogFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    throw new Error(`cannot read metrics directory ${dir}: ${(error as Error).message}`);
  }
  const label = path.basename(path.resolve(dir));
  const candidates = names.filter((name) => !name.startsWith(".") && YAML_FILE.test(name)).sort();
  const files: CatalogFile[] = [];
  for (const name of candidates) {
    const full = path.join(dir, name);
    try {
      if (!(await stat(full)).isFile()) continue; // stat follows symlinks; a *.yaml directory is skipped
      files.push({ file: `${label}/${name}`, content: await readFile(full, "utf8") });
    } catch (error) {
      throw new Error(`cannot read metrics file ${full}: ${(error as Error).message}`);
    }
  }
  return files;
}
