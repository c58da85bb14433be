import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readCatalogFiles } from "../../src/catalog/read-catalog-files.js";

const root = await mkdtemp(path.join(os.tmpdir(), "catalog-files-"));
afterAll(() => rm(root, { recursive: true, force: true }));

describe("readCatalogFiles", () => {
  it("reads *.yaml and *.yml sorted, non-recursive, skipping dotfiles and directories", async () => {
    const dir = path.join(root, "metrics");
    await mkdir(path.join(dir, "nested"), { recursive: true });
    await mkdir(path.join(dir, "dir.yaml"));
    await writeFile(path.join(dir, "b.yml"), "b");
    await writeFile(path.join(dir, "a.yaml"), "a");
    await writeFile(path.join(dir, "notes.txt"), "x");
    await writeFile(path.join(dir, ".hidden.yaml"), "h");
    await writeFile(path.join(dir, "nested", "c.yaml"), "c");
    await writeFile(path.join(root, "target.yaml"), "linked");
    await symlink(path.join(root, "target.yaml"), path.join(dir, "c.yaml")); // ConfigMap mounts are symlinks
    expect(await readCatalogFiles(dir)).toEqual([
      { file: "metrics/a.yaml", content: "a" },
      { file: "metrics/b.yml", content: "b" },
      { file: "metrics/c.yaml", content: "linked" },
    ]);
  });

  it("throws a clear error naming an unreadable directory", async () => {
    const missing = path.join(root, "missing");
    await expect(readCatalogFiles(missing)).rejects.toThrow(`cannot read metrics directory ${missing}`);
  });
});
