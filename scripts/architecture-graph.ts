// Prints the folder-level import graph of src/ as a Mermaid flowchart: docs/architecture.md embeds
// it between markers, and test/docs/architecture.test.ts holds the two equal, so the diagram is
// always the code's (`npx tsx scripts/architecture-graph.ts --write` refreshes the page).
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SRC = path.join(ROOT, "src");
export const BEGIN = "<!-- architecture-graph:begin -->";
export const END = "<!-- architecture-graph:end -->";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === "generated") return [];
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(name) ? [full] : [];
  });
}

/**
 * The top-level part of src/ a file belongs to: its folder, or the file's own name at the top
 * (one name whether it is the importing .ts file or the imported `.js` path).
 */
const partOf = (file: string) =>
  path
    .relative(SRC, file)
    .split(path.sep)[0]!
    .replace(/\.(tsx?|js)$/, "");

/** Edges "from -> to" between parts of src/, from each file's relative imports, sorted. */
export function folderEdges(): string[] {
  const edges = new Set<string>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+["'](\.[^"']+)["']/gm)) {
      const target = path.resolve(path.dirname(file), match[1]!);
      if (!target.startsWith(SRC + path.sep)) continue;
      const [from, to] = [partOf(file), partOf(target)];
      if (from !== to && to !== "generated") edges.add(`${from} --> ${to}`);
    }
  }
  return [...edges].sort();
}

export function mermaid(): string {
  const id = (part: string) => part.replace(/[^a-z0-9]/gi, "_");
  const lines = folderEdges().map((edge) => {
    const [from, to] = edge.split(" --> ") as [string, string];
    return `  ${id(from)}[${from}] --> ${id(to)}[${to}]`;
  });
  return ["```mermaid", "flowchart TD", ...lines, "```"].join("\n");
}

/** The page with the diagram between its markers replaced by today's. */
export function withDiagram(page: string): string {
  const start = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/architecture.md lacks the markers ${BEGIN} … ${END}`);
  return `${page.slice(0, start + BEGIN.length)}\n${mermaid()}\n${page.slice(end)}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--write")) {
    const file = path.join(ROOT, "docs", "architecture.md");
    writeFileSync(file, withDiagram(readFileSync(file, "utf8")));
  } else process.stdout.write(`${mermaid()}\n`);
}
