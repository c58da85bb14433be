// The real daemon with METRICS_DIR at the root of a dbt MetricFlow project in nested folders
// (dbt Labs' reference project, copied as it is) beside a file of our own format: both load,
// unsupported constructs are named errors, each IR says where it came from, and a filter
// ClickHouse cannot parse is reported by GET /v1/compiler/ir once the catalogue has loaded,
// before any scan.
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeCombinations, launch, type Backend, type RunningDaemon } from "./daemon-harness.js";

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/metricflow");
const DB = "mf_e2e";

interface CompilerView {
  metrics: { name: string; source: { format: string; file: string }; table: string | null }[];
  count: number;
  errors: { metric: string | null; file: string; message: string }[];
  warnings: { file: string; message: string }[];
}

describeCombinations("a dbt MetricFlow project as METRICS_DIR", (combination) => {
  let backend: Backend | undefined;
  let d: RunningDaemon | undefined;
  let dir: string | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "mr-e2e-mf-"));
    const root = path.join(dir, "project");
    await cp(FIXTURE, path.join(root, "semantic"), { recursive: true });
    await mkdir(path.join(root, "ours", "nested"), { recursive: true });
    await writeFile(
      path.join(root, "ours", "nested", "pasted.yaml"),
      `metrics:\n  - name: pasted_template\n    table: ${DB}.fct_bookings\n    filter: "{{ Dimension('booking__is_instant') }}"\n    measures: [{ alias: n, function: Count }]\n`,
    );
    await writeFile(path.join(root, "ours", "notes.txt"), "not a catalogue file\n");
    backend = await combination.prepare();
    d = await launch(backend, { METRICS_DIR: root, METRICFLOW_DATABASE: DB, SCAN_ON_START: "false" });
  });
  afterAll(async () => {
    await d?.stop();
    await backend?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("loads both formats from nested folders, names the unsupported metrics, shows each IR's source", async () => {
    const ir = (await d!.get("/v1/compiler/ir")) as CompilerView;
    expect(ir.count).toBe(59); // 58 MetricFlow metrics + ours
    // What the semantic models declare and no metric uses is said (docs/metricflow.md), nothing else.
    expect(ir.warnings.map((w) => w.message.replace(/^.*semantic_models\//, ""))).toEqual([
      'accounts_source.yaml: semantic model "accounts_source": measure account_balance is read by no metric (not tested)',
      'accounts_source.yaml: semantic model "accounts_source": primary_entity account is no column (no entity of type primary): no primary-key rules',
      'bookings_monthly.yaml: semantic model "bookings_monthly": primary_entity monthly_booking is no column (no entity of type primary): no primary-key rules',
      'bookings_source.yaml: semantic model "bookings_source": primary_entity booking is no column (no entity of type primary): no primary-key rules',
      'bookings_yearly.yaml: semantic model "bookings_yearly": primary_entity yearly_booking is no column (no entity of type primary): no primary-key rules',
      'revenue.yaml: semantic model "revenue": primary_entity end_of_day_revenue is no column (no entity of type primary): no primary-key rules',
    ]);
    const compileErrors = ir.errors.filter((e) => e.metric !== "pasted_template");
    expect(compileErrors.map((e) => [e.metric, e.file])).toEqual([
      ["active_listings", "project/semantic/simple_semantic_manifest/metrics.yaml"],
    ]);
    for (const e of compileErrors) expect(e.message).toContain("unsupported: filter");
    const bookings = await d!.get("/v1/compiler/ir/bookings");
    expect(bookings).toMatchObject({
      kind: "structured",
      table: `${DB}.fct_bookings`,
      source: { format: "metricflow", file: "project/semantic/simple_semantic_manifest/metrics.yaml" },
    });
    expect(await d!.get("/v1/compiler/ir/pasted_template")).toMatchObject({
      source: { format: "ours", file: "project/ours/nested/pasted.yaml" },
    });
  });

  it("reports a filter ClickHouse cannot parse once the catalogue has loaded, and keeps the metric unknown", async () => {
    let errors: CompilerView["errors"] = [];
    for (let i = 0; i < 200 && errors.length === 0; i += 1) {
      errors = ((await d!.get("/v1/compiler/ir")) as CompilerView).errors.filter((e) => e.metric === "pasted_template");
      if (errors.length === 0) await sleep(50);
    }
    expect(errors).toEqual([
      {
        metric: "pasted_template",
        file: "project/ours/nested/pasted.yaml",
        message: expect.stringMatching(
          /filter "\{\{ Dimension\('booking__is_instant'\) \}\}" cannot be parsed by ClickHouse: .*Syntax error/,
        ),
      },
    ]);
    expect(await d!.get("/v1/reliability/status/pasted_template")).toMatchObject({ status: "unknown", safe_to_use: false });
    expect(d!.logs.some((l) => String((l as { msg?: unknown }).msg).includes("cannot be parsed by ClickHouse"))).toBe(true);
  });
});
