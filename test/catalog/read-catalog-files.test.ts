import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readCatalogFiles } from "../../src/catalog/read-catalog-files.js";

const root = await mkdtemp(path.join(os.tmpdir(), "catalog-files-"));
afterAll(() => rm(root, { recursive: true, force: true }));

describe("readCatalogFiles", () => {
  it("reads *.yaml and *.yml recursively, sorted by path, skipping dotfiles, target/ and non-YAML files", async () => {
    const dir = path.join(root, "metrics");
    await mkdir(path.join(dir, "nested", "deeper"), { recursive: true });
    await mkdir(path.join(dir, "dir.yaml"));
    await mkdir(path.join(dir, "target", "compiled"), { recursive: true });
    await mkdir(path.join(dir, ".git"));
    await writeFile(path.join(dir, "b.yml"), "b");
    await writeFile(path.join(dir, "a.yaml"), "a");
    await writeFile(path.join(dir, "notes.txt"), "x");
    await writeFile(path.join(dir, ".hidden.yaml"), "h");
    await writeFile(path.join(dir, "nested", "c.yaml"), "c");
    await writeFile(path.join(dir, "nested", "orders.sql"), "select 1");
    await writeFile(path.join(dir, "nested", "deeper", "d.YML"), "d");
    await writeFile(path.join(dir, "target", "compiled", "copy.yml"), "compiled");
    await writeFile(path.join(dir, ".git", "config.yaml"), "git");
    await writeFile(path.join(root, "target.yaml"), "linked");
    await symlink(path.join(root, "target.yaml"), path.join(dir, "c.yaml")); // ConfigMap mounts are symlinks
    await symlink(dir, path.join(dir, "nested", "loop")); // a directory symlink loop ends
    expect(await readCatalogFiles(dir)).toEqual([
      { file: "metrics/a.yaml", content: "a" },
      { file: "metrics/b.yml", content: "b" },
      { file: "metrics/c.yaml", content: "linked" },
      { file: "metrics/nested/c.yaml", content: "c" },
      { file: "metrics/nested/deeper/d.YML", content: "d" },
    ]);
  });

  it("throws a clear error naming an unreadable directory", async () => {
    const missing = path.join(root, "missing");
    await expect(readCatalogFiles(missing)).rejects.toThrow(`cannot read metrics directory ${missing}`);
  });
});
