// The build's second step (package.json "build", scripts/start.sh): tsc emits only JavaScript, so
// the files the daemon reads beside its modules (the pages' stylesheet, script and icon) are
// copied from src/ to the same place under dist/. Plain Node, so it runs wherever the build runs.
import { cpSync } from "node:fs";
import { pathToFileURL } from "node:url";

/** Folders under src/ whose files are read at run time, not compiled (test/web/assets.test.ts holds this list complete). */
export const COPIED = ["web/assets"];

export function copyAssets(root = new URL("../", import.meta.url)) {
  for (const directory of COPIED) {
    cpSync(new URL(`src/${directory}/`, root), new URL(`dist/${directory}/`, root), { recursive: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) copyAssets();
