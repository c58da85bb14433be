// The embedded store's database as initdb leaves it, made once per test run and copied into each
// data directory that wants one: initdb takes 10-20 s on a 2-core machine, a copy a fraction of a
// second, and a dozen suites start an embedded daemon. The daemon migrates the copy as it would a
// new database. The tests of initdb itself (test/store/embedded-store.test.ts) do not use it.
import { existsSync } from "node:fs";
import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { inject } from "vitest";
import { initdbIfMissing } from "../../src/store/open-pglite.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** an empty folder of this run's (test/pglite-template-setup.ts), where the first caller makes the template */
    pgliteTemplateRoot: string;
  }
}

const WAIT_MS = 300_000;

/** Puts a new database at `dataDir/pglite` (the embedded store's folder), copied from the template. */
export async function seedEmbeddedStore(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await cp(await template(), path.join(dataDir, "pglite"), { recursive: true });
}

async function template(): Promise<string> {
  const root = inject("pgliteTemplateRoot");
  const ready = path.join(root, "pglite");
  if (existsSync(path.join(ready, "PG_VERSION"))) return ready;
  // One worker makes it (mkdir is atomic across processes); the others wait for initdb's rename.
  const maker = await mkdir(path.join(root, "lock")).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === "EEXIST") return false;
      throw error;
    },
  );
  // A failed initdb is written down, so the other workers fail at once with its reason instead
  // of each waiting WAIT_MS for a template that will not come.
  const failed = path.join(root, "failed");
  if (maker)
    await initdbIfMissing(ready).catch(async (error: unknown) => {
      await writeFile(failed, error instanceof Error ? error.message : String(error));
      throw error;
    });
  const until = Date.now() + WAIT_MS;
  while (!existsSync(path.join(ready, "PG_VERSION"))) {
    if (existsSync(failed)) throw new Error(`the PGlite template's initdb failed: ${await readFile(failed, "utf8")}`);
    if (Date.now() > until) throw new Error(`no PGlite template in ${root} after ${WAIT_MS / 1000} s`);
    await sleep(200);
  }
  return ready;
}
