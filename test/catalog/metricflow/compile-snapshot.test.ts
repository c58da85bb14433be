// What the MetricFlow reader makes of the reference project, the dbt projects the other tests
// use and a corpus of small projects (each one construct or one mistake), pinned as JSON under
// expected/: the definitions, the compiled IR, the inferred tests, every error and warning.
// Written before the reader moved from raw YAML walking to zod schemas, kept equal through it;
// a deliberate change of output shows up here as a reviewed diff of those files.
import { createHash } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseCatalog, type ParseOptions } from "../../../src/catalog/parse-catalog.js";
import { readCatalogFiles } from "../../../src/catalog/read-catalog-files.js";
import type { CatalogFile } from "../../../src/catalog/types.js";
import { compileCatalog } from "../../../src/compile/compile.js";
import { inferCatalog } from "../../../src/infer/infer.js";
import type { InferredTest } from "../../../src/infer/types.js";
import { SCHEMA, SEMANTIC } from "./dbt-model-files.js";
import { CASES } from "./snapshot-cases.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REFERENCE = path.resolve(HERE, "../../fixtures/metricflow");

/** The inferred tests are large (SQL per test): pinned by a hash of all of them, listed by metric and rule. */
function testsSummary(tests: InferredTest[]) {
  const sha256 = createHash("sha256").update(JSON.stringify(tests)).digest("hex");
  return { count: tests.length, sha256, rules: tests.map((t) => `${t.metric} ${t.rule} ${t.check}`) };
}

function compiled(files: CatalogFile[], options: ParseOptions) {
  const catalog = parseCatalog(files, options);
  const ir = compileCatalog(catalog.metrics);
  return { errors: catalog.errors, warnings: catalog.warnings, definitions: catalog.metrics, ir, tests: testsSummary(inferCatalog(ir)) };
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
const filesOf = (files: Record<string, string>): CatalogFile[] => Object.entries(files).map(([file, content]) => ({ file, content }));

describe("MetricFlow compile snapshot", () => {
  it("the reference project (test/fixtures/metricflow)", async () => {
    const files = await readCatalogFiles(REFERENCE);
    await expect(json(compiled(files, { metricflowDatabase: "mf" }))).toMatchFileSnapshot("expected/reference-project.json");
  });

  it("a dbt project's model files (read-project.test.ts)", async () => {
    const files = filesOf({ "project/models/marts/schema.yml": SCHEMA, "project/models/marts/semantic.yml": SEMANTIC });
    await expect(json(compiled(files, { metricflowDatabase: "analytics" }))).toMatchFileSnapshot("expected/dbt-model-files.json");
  });

  it("the corpus of small projects: every message and leniency", async () => {
    const out: Record<string, unknown> = {};
    for (const [name, files] of Object.entries(CASES)) {
      const { errors, warnings, definitions, tests } = compiled(filesOf(files), { metricflowDatabase: "db" });
      // The IR repeats the definitions.
      out[name] = { errors, warnings, definitions, tests };
    }
    await expect(json(out)).toMatchFileSnapshot("expected/cases.json");
  });
});
