// The catalogue stage's only I/O: every *.yaml / *.yml file under one directory, recursively.
import { readdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import type { CatalogFile } from "./types.js";

const YAML_FILE = /\.ya?ml$/i;
/** dbt's build output (compiled copies of every file) and installed packages are not sources. */
const SKIPPED_DIRECTORIES = new Set(["target", "dbt_packages"]);

/**
 * Files sorted by path, read recursively. Dotfiles and dot-directories are skipped: a
 * Kubernetes ConfigMap mount keeps `..data` links beside the real files (themselves
 * symlinks), and `.git` holds no definitions. Non-YAML files (a dbt project's `.sql`
 * models, READMEs) are ignored. `file` is "<directory name>/<relative path>" (e.g.
 * "metrics/marts/orders.yml"): short, stable across machines, and no absolute path leaks
 * into API error messages.
 */
export async function readCatalogFiles(dir: string): Promise<CatalogFile[]> {
  try {
    await readdir(dir);
  } catch (error) {
    throw new Error(`cannot read metrics directory ${dir}: ${(error as Error).message}`, { cause: error });
  }
  const label = path.basename(path.resolve(dir));
  const found: string[] = [];
  // Real paths of visited directories: a symlink loop must not recurse forever.
  const visited = new Set<string>();

  async function walk(relative: string): Promise<void> {
    const full = path.join(dir, relative);
    const real = await realDirectory(full);
    if (real === null || visited.has(real)) return;
    visited.add(real);
    let names: string[];
    try {
      names = (await readdir(full)).sort();
    } catch (error) {
      throw new Error(`cannot read metrics directory ${full}: ${(error as Error).message}`, { cause: error });
    }
    for (const name of names) {
      if (name.startsWith(".")) continue;
      const child = relative === "" ? name : `${relative}/${name}`;
      let info;
      try {
        info = await stat(path.join(dir, child)); // follows symlinks
      } catch {
        continue; // a dangling symlink is not a catalogue file
      }
      if (info.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(name)) await walk(child);
      } else if (info.isFile() && YAML_FILE.test(name)) found.push(child);
    }
  }

  await walk("");
  const files: CatalogFile[] = [];
  for (const relative of found.sort()) {
    const full = path.join(dir, relative);
    try {
      files.push({ file: `${label}/${relative}`, content: await readFile(full, "utf8") });
    } catch (error) {
      throw new Error(`cannot read metrics file ${full}: ${(error as Error).message}`, { cause: error });
    }
  }
  return files;
}

async function realDirectory(full: string): Promise<string | null> {
  try {
    return await realpath(full);
  } catch {
    return null;
  }
}
