// The pages' assets are real files under src/web/assets: each is served under a URL that carries a
// hash of its bytes, and the build copies every file the daemon reads beside its modules to dist/.
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { COPIED, copyAssets } from "../../scripts/copy-assets.mjs";
import { ASSETS, ICON, SCRIPT_FILE, STYLESHEET } from "../../src/web/assets.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the pages' assets", () => {
  it("are the files in src/web/assets, each under a URL with the hash of its content", () => {
    const files = { "style.css": STYLESHEET, "app.js": SCRIPT_FILE, "icon.svg": ICON };
    expect(readdirSync(path.join(ROOT, "src/web/assets")).sort()).toEqual(Object.keys(files).sort());
    for (const [file, asset] of Object.entries(files)) {
      const bytes = readFileSync(path.join(ROOT, "src/web/assets", file));
      expect(asset.body.equals(bytes), file).toBe(true);
      const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 12);
      const [name, extension] = file.split(".");
      expect(asset.url).toBe(`/assets/${name}.${hash}.${extension}`);
      expect(ASSETS.get(asset.url)).toBe(asset);
    }
    expect(STYLESHEET.type).toBe("text/css; charset=utf-8");
    expect(SCRIPT_FILE.type).toBe("text/javascript; charset=utf-8");
    expect(ICON.type).toBe("image/svg+xml");
  });

  it("are copied by the build: every file under src/ that tsc does not compile is in a copied folder", () => {
    const loose = readdirSync(path.join(ROOT, "src"), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && !/\.tsx?$/.test(entry.name))
      .map((entry) => path.relative(path.join(ROOT, "src"), path.join(entry.parentPath, entry.name)))
      .filter((file) => !file.startsWith(`generated${path.sep}`));
    expect(loose.length).toBeGreaterThan(0);
    for (const file of loose)
      expect(
        COPIED.some((folder) => file.startsWith(`${folder}/`)),
        file,
      ).toBe(true);

    const root = mkdtempSync(path.join(os.tmpdir(), "mr-assets-"));
    temps.push(root);
    for (const folder of COPIED) cpSync(path.join(ROOT, "src", folder), path.join(root, "src", folder), { recursive: true });
    copyAssets(pathToFileURL(`${root}/`));
    for (const file of loose)
      expect(readFileSync(path.join(root, "dist", file)).equals(readFileSync(path.join(ROOT, "src", file))), file).toBe(true);
  });
});
