import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folder holding the package's package.json, found by walking up from `fromUrl`.
 * Works from src/store (tsx, vitest) and from dist/store (after tsc) alike.
 */
export function findPackageRoot(fromUrl: string = import.meta.url): string {
  let dir = path.dirname(fileURLToPath(fromUrl));
  for (;;) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(fromUrl)}`);
    dir = parent;
  }
}

/** prisma/migrations of this package. */
export function defaultMigrationsDir(): string {
  return path.join(findPackageRoot(), "prisma", "migrations");
}
