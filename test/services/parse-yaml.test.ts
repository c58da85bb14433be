// The catalogue's YAML parsed in worker threads gives what parsing on the main thread gives:
// every file's documents, a broken file's error, and the same catalogue snapshot end to end.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/catalog/parse-catalog.js";
import { readCatalogFiles } from "../../src/catalog/read-catalog-files.js";
import type { CatalogFile } from "../../src/catalog/types.js";
import { parseYamlDocuments } from "../../src/catalog/yaml-documents.js";
import { compileCatalog } from "../../src/compile/compile.js";
import { makeSnapshot } from "../../src/infer/catalog-snapshot.js";
import { inferCatalog } from "../../src/infer/infer.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import { PARALLEL_MIN_BYTES, parseInWorker, parseYamlFiles } from "../../src/services/parse-yaml.js";
import { writeCatalog } from "../../bench/bench-catalog.js";
import { scaleMetrics } from "../../bench/scale/scale-catalog.js";

describe("parseYamlFiles", () => {
  let dir: string;
  let files: CatalogFile[];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "mr-parse-yaml-"));
    await writeCatalog(dir, scaleMetrics("shop", 20, 1_500));
    // YAML features the workers must give back as the main thread does: anchors, NaN, -0, nulls, a broken file.
    await writeFile(
      path.join(dir, "zz-extra.yaml"),
      "metrics:\n  - &m { name: extra, table: shop.t000, measures: [{ alias: n, function: Count }], tolerances: { x: .nan, y: -0.0 } }\n---\nfoo: ~\n",
    );
    await writeFile(path.join(dir, "zz-broken.yaml"), "metrics:\n  - name: [unclosed\n");
    files = await readCatalogFiles(dir);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("parses in worker threads what the main thread parses", async () => {
    expect(files.reduce((n, f) => n + f.content.length, 0)).toBeGreaterThan(PARALLEL_MIN_BYTES);
    const sequential = new Map(files.map((f) => [f.file, parseYamlDocuments(f)]));
    for (const threads of [1, 3]) {
      const parallel = await parseYamlFiles(files, threads);
      expect([...parallel.keys()].sort()).toEqual([...sequential.keys()].sort());
      for (const [file, result] of sequential) expect(parallel.get(file)).toStrictEqual(result);
    }
    // the workers themselves answer (parseYamlFiles falls back to the main thread when one fails)
    const fromWorker = await parseInWorker(files);
    expect(fromWorker).not.toBeNull();
    expect(new Map(fromWorker)).toStrictEqual(sequential);
    const broken = files.find((f) => f.file.endsWith("zz-broken.yaml"))!.file;
    expect(sequential.get(broken)).toMatchObject({ error: { file: broken } });
    const extra = files.find((f) => f.file.endsWith("zz-extra.yaml"))!.file;
    expect(sequential.get(extra)).toMatchObject({ documents: [{ metrics: [{ tolerances: { x: Number.NaN, y: -0 } }] }, { foo: null }] });
  });

  it("loads the same catalogue snapshot as parsing on the main thread", async () => {
    const compiledAt = new Date(0);
    const catalog = parseCatalog(files);
    const metrics = compileCatalog(catalog.metrics);
    const expected = makeSnapshot({
      metrics,
      tests: inferCatalog(metrics),
      errors: catalog.errors,
      warnings: catalog.warnings,
      compiled_at: compiledAt,
    });
    const loaded = await loadCatalogSnapshot(dir, compiledAt);
    expect(loaded.version).toBe(expected.version);
    expect(loaded.tests.length).toBeGreaterThan(10_000);
    expect(loaded).toStrictEqual(expected);
  });
});
