// dbt's latest YAML spec: the reference project translated into it (test/fixtures/metricflow-latest,
// by translate.py, following "Migrate to the latest YAML spec") compiles to the same metrics, the
// same IR and the same inferred tests as the legacy original (test/fixtures/metricflow).
// What differs by construction: measures are gone, so a measure is named like its simple metric
// (the IR's measure alias and metricflow.measures[].name), and the files' names.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { MetricIR } from "../../../src/compile/ir.js";
import { loadCatalogSnapshot } from "../../../src/services/load-catalog.js";

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures");
const legacy = await loadCatalogSnapshot(path.join(FIXTURES, "metricflow"), new Date(0), { metricflowDatabase: "mf" });
const latest = await loadCatalogSnapshot(path.join(FIXTURES, "metricflow-latest"), new Date(0), { metricflowDatabase: "mf" });

const sorted = <T extends { name: string }>(items: readonly T[]): T[] => [...items].sort((a, b) => a.name.localeCompare(b.name));

/**
 * The IR without what names files and measures, its dimensions and entities in name order
 * (the latest spec declares them column by column, the legacy one in lists of their own).
 */
function comparable(ir: MetricIR) {
  const { file: _file, source: _source, metricflow, ...rest } = ir;
  const mf = metricflow === null ? null : { ...metricflow };
  if (mf !== null) {
    if (Array.isArray(mf.measures)) mf.measures = mf.measures.map(({ name: _n, ...m }: Record<string, unknown>) => m);
    for (const key of ["dimensions", "entities"] as const) if (Array.isArray(mf[key])) mf[key] = sorted(mf[key] as { name: string }[]);
  }
  return { ...rest, dimensions: sorted(ir.dimensions), measures: ir.measures.map(({ alias: _a, ...m }) => m), metricflow: mf };
}

const byName = <T extends { name: string }>(items: readonly T[]) => new Map(items.map((i) => [i.name, i]));

describe("the reference project in the latest YAML spec", () => {
  it("compiles the same metrics, with the same errors", () => {
    expect(latest.metrics.map((m) => m.name).sort()).toEqual(legacy.metrics.map((m) => m.name).sort());
    expect(latest.metrics.length).toBeGreaterThan(50);
    expect(latest.errors.map((e) => e.metric)).toEqual(legacy.errors.map((e) => e.metric));
    expect(latest.errors.map((e) => e.message.replace(/^[^:]+: /, ""))).toEqual(
      legacy.errors.map((e) => e.message.replace(/^[^:]+: /, "")),
    );
    expect(latest.metrics.every((m) => m.source.format === "metricflow")).toBe(true);
  });

  it("compiles every metric to the same IR", () => {
    const old = byName(legacy.metrics);
    for (const metric of latest.metrics) expect(comparable(metric), metric.name).toEqual(comparable(old.get(metric.name)!));
  });

  it("infers the same tests", () => {
    const keys = (tests: typeof legacy.tests) => tests.map((t) => `${t.metric}|${t.key}|${t.severity}|${t.tolerance}`).sort();
    expect(latest.tests.length).toBe(legacy.tests.length);
    expect(keys(latest.tests)).toEqual(keys(legacy.tests));
  });
});
