// docs/architecture.md draws the import graph of src/ from the code and names every folder of src/.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { folderEdges, withDiagram } from "../../scripts/architecture-graph.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const page = readFileSync(path.join(ROOT, "docs", "architecture.md"), "utf8");

describe("docs/architecture.md", () => {
  it("holds today's import graph (run `npx tsx scripts/architecture-graph.ts --write` after moving code)", () => {
    expect(folderEdges().length).toBeGreaterThan(20);
    expect(page).toBe(withDiagram(page));
  });

  it("has a paragraph for every folder of src/", () => {
    const folders = readdirSync(path.join(ROOT, "src"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== "generated")
      .map((entry) => entry.name);
    const missing = folders.filter((name) => !page.includes(`**\`${name}/\`**`));
    expect(missing).toEqual([]);
  });
});
