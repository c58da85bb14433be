import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { DEMO_METRICS_DIR } from "../../src/config/config.js";
import { parseWithYaml, parseYamlDocuments } from "../../src/catalog/yaml-documents.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return yamlFiles(full);
    return /\.ya?ml$/.test(name) ? [full] : [];
  });
}

const file = (content: string) => ({ file: "metrics/x.yaml", content });

describe("parseYamlDocuments: js-yaml for the common file, `yaml` for the rest, one result", () => {
  const fixtures = [...yamlFiles(path.resolve(HERE, "../fixtures")), ...yamlFiles(DEMO_METRICS_DIR)];

  it("reads every fixture (dbt Labs' reference project among them) and the demo catalogue as `yaml` does", () => {
    expect(fixtures.length).toBeGreaterThan(20);
    for (const name of fixtures) {
      const content = readFileSync(name, "utf8");
      expect(parseYamlDocuments({ file: name, content }), name).toEqual(parseWithYaml({ file: name, content }));
    }
  });

  it("reads YAML 1.2 core scalars as `yaml` does: dates and yes/no stay strings, numbers and nulls are typed", () => {
    const content = [
      "metrics:",
      "  - name: m",
      "    from: 2026-12-24",
      "    at: 2026-12-24T10:00:00Z",
      "    flags: [yes, no, on, off, true, false, True]",
      "    numbers: [1, -2, 0x1F, 0o17, 1e3, .inf, -.inf, 1_000, 012]",
      "    nothing: [null, ~, '', \"~\"]",
      "    text: |",
      "      SELECT 1",
      "        AS x",
      "    folded: >-",
      "      a",
      "      b",
      "    '<<': not a merge",
      "    sql: amount * 2",
      "---",
      "---",
      "metric: second",
    ].join("\n");
    const fast = parseYamlDocuments(file(content));
    expect(fast).toEqual(parseWithYaml(file(content)));
    expect(fast).toMatchObject({
      documents: [{ metrics: [{ from: "2026-12-24", flags: ["yes", "no", "on", "off", true, false, true] }] }, { metric: "second" }],
    });
  });

  it("gives `yaml`'s message, with line and column, for what it refuses", () => {
    for (const content of ["metrics:\n  - name: a\n  name: b\n bad", "a: 1\na: 2\n", "metrics: [\n"]) {
      const fast = parseYamlDocuments(file(content));
      expect(fast).toEqual(parseWithYaml(file(content)));
      expect(fast).toHaveProperty("error.message", expect.stringMatching(/^metrics\/x\.yaml: invalid YAML/));
    }
  });

  it("reads a tag js-yaml does not know as `yaml` does (a string)", () => {
    expect(parseYamlDocuments(file("x: !custom 1\n"))).toEqual({ documents: [{ x: "1" }] });
  });

  it("reads anchors and aliases; an alias bomb goes to `yaml`, whose expansion cap stops it", () => {
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      ...Array.from({ length: 8 }, (_, i) => {
        const prev = String.fromCharCode(97 + i);
        const next = String.fromCharCode(98 + i);
        return `${next}: &${next} [${Array(10).fill(`*${prev}`).join(", ")}]`;
      }),
    ].join("\n");
    expect(parseYamlDocuments(file(bomb))).toHaveProperty("error.message", expect.stringMatching(/invalid YAML/));
    // yaml.stringify writes an object met twice as an anchor and aliases, as generated catalogues have them.
    const measure = { name: "revenue", agg: "sum", expr: "price*qty" };
    const generated = stringify({ metrics: Array.from({ length: 50 }, (_, i) => ({ name: `m${i}`, measures: [measure] })) });
    expect(generated).toContain("*a1");
    expect(parseYamlDocuments(file(generated))).toEqual(parseWithYaml(file(generated)));
    const shared = "base: &b {grain: day}\nmetrics:\n  - anomalies: *b\n";
    expect(parseYamlDocuments(file(shared))).toEqual({
      documents: [{ base: { grain: "day" }, metrics: [{ anomalies: { grain: "day" } }] }],
    });
  });
});
