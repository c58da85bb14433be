import { describe, expect, it } from "vitest";
import { parseCatalog } from "../../src/catalog/parse-catalog.js";

const OURS = "metrics:\n  - name: revenue\n    table: shop.orders\n    measures: [{ alias: r, function: Sum, column: amount }]\n";

describe("catalogue file forms", () => {
  it("warns about a YAML file of no known form, never fails on it, and loads the rest", () => {
    const catalog = parseCatalog([
      { file: "metrics/dbt_project.yml", content: "name: shop\nversion: '1.0'\nprofile: shop\n" },
      { file: "metrics/nested/packages.yml", content: "packages:\n  - package: dbt-labs/dbt_utils\n" },
      { file: "metrics/values.yaml", content: "replicas: 2\n" },
      { file: "metrics/helm/other.yml", content: "image: x\n" },
      { file: "metrics/ours.yaml", content: OURS },
    ]);
    expect(catalog.errors).toEqual([]);
    expect(catalog.metrics.map((m) => m.name)).toEqual(["revenue"]);
    // dbt's own project files are known by name and carry nothing for us: no warning.
    expect(catalog.warnings).toEqual([
      {
        file: "metrics/helm/other.yml",
        message: expect.stringMatching(/^metrics\/helm\/other\.yml: skipped: neither a metrics: list nor a dbt\/MetricFlow file/),
      },
      { file: "metrics/values.yaml", message: expect.stringMatching(/^metrics\/values\.yaml: skipped: /) },
    ]);
  });

  it("reads dbt model files whose keys carry nothing for us without a word", () => {
    const catalog = parseCatalog([
      {
        file: "metrics/models/schema.yml",
        content: "version: 2\nmodels:\n  - name: orders\n    columns:\n      - name: id\ngroups:\n  - name: finance\nsaved_queries: []\n",
      },
      { file: "metrics/sources.yml", content: "version: 2\nsources:\n  - name: raw\n    tables: [{ name: orders }]\n" },
    ]);
    expect(catalog).toEqual({ metrics: [], errors: [], warnings: [] });
  });

  it("tells our metrics: list from dbt's by the entries (dbt metrics have a type)", () => {
    const dbt = parseCatalog([
      { file: "m/a.yml", content: "metrics:\n  - name: x\n    type: simple\n    type_params: { measure: nope }\n" },
    ]);
    expect(dbt.errors.map((e) => e.message)).toEqual(['m/a.yml: metric "x": type_params.measure: unknown measure nope']);
    expect(parseCatalog([{ file: "m/b.yaml", content: OURS }]).metrics).toHaveLength(1);
  });
});
