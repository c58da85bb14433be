// vitest globalSetup: an empty folder for this run's PGlite template (test/helpers/pglite-template.ts),
// removed when the run ends.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = await mkdtemp(path.join(os.tmpdir(), "mr-pglite-template-"));
  project.provide("pgliteTemplateRoot", root);
  return () => rm(root, { recursive: true, force: true });
}
