// `validate` and `tests` need no server: they compile the catalogue and list the inferred tests.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_METRICS_DIR } from "../../src/config/config.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import { testListing } from "../../src/services/validation-service.js";
import { runCli } from "./run-cli.js";

const demo = await loadCatalogSnapshot(DEMO_METRICS_DIR);

describe("metric-reliability validate", () => {
  let badDir: string;
  beforeAll(async () => {
    badDir = await mkdtemp(path.join(os.tmpdir(), "mr-cli-catalogue-"));
    await writeFile(
      path.join(badDir, "sales.yaml"),
      [
        "metrics:",
        "  - name: good_revenue",
        "    table: shop.orders",
        "    measures: [{ alias: revenue, function: Sum, column: amount }]",
        "  - name: bad_revenue",
        "    table: shop.orders",
        "    measures: [{ alias: revenue, function: Total, column: amount }]",
      ].join("\n"),
    );
  });
  afterAll(() => rm(badDir, { recursive: true, force: true }));

  it("exits 0 on the demo catalogue", async () => {
    const run = await runCli(["validate"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${demo.metrics.length} metrics, ${demo.tests.length} inferred tests, valid`);
  });

  it("exits 1 naming the file, the metric and the field of a compile error", async () => {
    const run = await runCli(["validate", "--metrics-dir", badDir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/sales\.yaml \(bad_revenue\): .*measures\[0\]\.function/);
    expect(run.stdout).toContain("1 metrics");
    const json = await runCli(["validate", "--json"], { METRICS_DIR: badDir });
    expect(json.code).toBe(1);
    const body = JSON.parse(json.stdout);
    expect(body.metrics).toBe(1);
    expect(body.errors).toEqual([
      { metric: "bad_revenue", file: expect.stringContaining("sales.yaml"), message: expect.stringContaining("measures[0].function") },
    ]);
  });

  it("lists warnings with --json (and on stderr), without failing", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "mr-cli-warnings-"));
    try {
      await writeFile(
        path.join(dir, "schema.yml"),
        [
          "models:",
          "  - name: orders",
          "    semantic_model: true",
          "    agg_time_dimension: ordered_at",
          "    columns:",
          "      - { name: ordered_at, dimension: time, granularity: day }",
          "      - { name: shipped_at, granularity: day }",
          "    metrics:",
          "      - { name: revenue, type: simple, agg: sum, expr: amount }",
          "  - name: archived",
          "    semantic_model: false",
        ].join("\n"),
      );
      const json = await runCli(["validate", "--json"], { METRICS_DIR: dir });
      expect(json.code).toBe(0);
      const body = JSON.parse(json.stdout);
      expect(body).toMatchObject({ metrics: 1, errors: [] });
      expect(body.warnings.map((w: { message: string }) => w.message)).toEqual([
        expect.stringContaining("columns[1] (shipped_at): granularity without dimension"),
        expect.stringContaining("models[1] (archived) has semantic_model switched off"),
      ]);
      const human = await runCli(["validate"], { METRICS_DIR: dir });
      expect(human.code).toBe(0);
      expect(human.stderr).toContain("warning: ");
      expect(human.stdout).toContain("1 metrics");
      expect(human.stdout).toContain("valid, 2 warnings");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("exits 2 on a usage error", async () => {
    const run = await runCli(["validate", "--no-such-option"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown option");
  });
});

describe("metric-reliability tests", () => {
  it("prints GET /v1/validation/tests' body with --json", async () => {
    const run = await runCli(["tests", "--json"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(testListing(demo));
  });

  it("narrows to --metric and prints a table", async () => {
    const expected = demo.tests.filter((t) => t.metric === "gross_revenue");
    const run = await runCli(["tests", "--metric", "gross_revenue"]);
    expect(run.code).toBe(0);
    const rows = run.stdout.split("\n").filter((line) => line.startsWith("│ gross_revenue "));
    expect(rows).toHaveLength(expected.length);
    expect(rows.map((r) => r.split("│")[2]!.trim())).toEqual(expected.map((t) => t.rule));
    expect(run.stdout).toContain(`${expected.length} inferred tests`);
  });

  it("exits 2 for an unknown metric", async () => {
    const run = await runCli(["tests", "--metric", "no_such_metric"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown metric "no_such_metric"');
  });
});
