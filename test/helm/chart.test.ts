// The Helm chart without a helm binary: values.yaml against values.schema.json (the schema helm
// itself enforces), default probes, every .Values path the templates use exists in values.yaml,
// and the chart ships the very rules file promtool and the real-Prometheus test check.
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { RULES_FILE } from "../prometheus/scaled-rules.js";

const root = path.resolve(import.meta.dirname, "../..");
const chart = path.join(root, "helm", "metric-reliability");
const values = parse(readFileSync(path.join(chart, "values.yaml"), "utf8")) as Record<string, any>;
const schema = JSON.parse(readFileSync(path.join(chart, "values.schema.json"), "utf8")) as object;
const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(schema);
const errorsOf = (candidate: unknown) => (validate(candidate) ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.message}`));
const withValue = (patch: (v: Record<string, any>) => void) => {
  const copy = structuredClone(values);
  patch(copy);
  return copy;
};

describe("values.schema.json", () => {
  it("accepts the chart's values.yaml", () => {
    expect(errorsOf(values)).toEqual([]);
  });

  it("rejects misspelt keys and wrong values, naming them", () => {
    expect(errorsOf(withValue((v) => (v.replicaCont = 2)))).toEqual([" must NOT have additional properties"]);
    expect(errorsOf(withValue((v) => (v.config.logLevel = "verbose")))).toEqual(["/config/logLevel must be equal to one of the allowed values"]);
    expect(errorsOf(withValue((v) => (v.auth.apiKeys = ["short"])))).toEqual(["/auth/apiKeys/0 must NOT have fewer than 16 characters"]);
    expect(errorsOf(withValue((v) => (v.readinessProbe.httpGet.path = "readyz")))).toEqual(['/readinessProbe/httpGet/path must match pattern "^/"']);
    expect(errorsOf(withValue((v) => (v.clickhouse.datasources = { Finance: { url: "http://ch:8123" } })))).not.toEqual([]);
    expect(errorsOf(withValue((v) => (v.database.url = "mysql://x")))).not.toEqual([]);
  });
});

describe("default values", () => {
  it("probe /healthz for startup and liveness and /readyz for readiness", () => {
    expect(values.startupProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(values.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(values.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
  });
});

describe("templates", () => {
  const templates = readdirSync(path.join(chart, "templates")).map((f) => ({ file: f, text: readFileSync(path.join(chart, "templates", f), "utf8") }));

  it("reference only .Values paths that values.yaml defines", () => {
    const referenced = new Set<string>();
    for (const { text } of templates) for (const m of text.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) referenced.add(m[1]!.slice(1));
    expect(referenced.size).toBeGreaterThan(50);
    const missing = [...referenced].filter((ref) => {
      let node: unknown = values;
      for (const key of ref.split(".")) {
        if (node === null || typeof node !== "object" || !(key in node)) return true;
        node = (node as Record<string, unknown>)[key];
      }
      return false;
    });
    expect(missing).toEqual([]);
  });

  it("ship the rules file that promtool and the real-Prometheus test check", () => {
    const rules = path.join(chart, "files", "alerts.yml");
    expect(templates.find((t) => t.file === "prometheusrule.yaml")!.text).toContain('.Files.Get "files/alerts.yml"');
    expect(realpathSync(path.join(root, "prometheus", "alerts.yml"))).toBe(realpathSync(rules));
    const unitTests = parse(readFileSync(path.join(root, "prometheus", "alerts.test.yml"), "utf8")) as { rule_files: string[] };
    expect(unitTests.rule_files.map((f) => realpathSync(path.resolve(root, "prometheus", f)))).toEqual([realpathSync(rules)]);
    expect(realpathSync(RULES_FILE)).toBe(realpathSync(rules));
    // .helmignore must not leave it (or the schema) out of the packaged chart.
    const ignored = readFileSync(path.join(chart, ".helmignore"), "utf8").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
    for (const pattern of ignored) expect(["files/alerts.yml", "files/", "*.yml", "values.schema.json", "*.json"]).not.toContain(pattern);
  });
});
