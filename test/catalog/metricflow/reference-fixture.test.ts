// dbt Labs' reference MetricFlow project (test/fixtures/metricflow, Apache 2.0, unchanged),
// loaded as a user would: METRICS_DIR at the root of its nested folders. Every metric either
// compiles or gets a named, deliberate "unsupported" error.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadCatalogSnapshot } from "../../../src/services/load-catalog.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/metricflow");
const snapshot = await loadCatalogSnapshot(ROOT, new Date(), { metricflowDatabase: "mf" });
const declared = ((await readFile(path.join(ROOT, "simple_semantic_manifest/metrics.yaml"), "utf8")).match(/^metric:/gm) ?? []).length;

/** The constructs this reader does not support yet, by metric. */
const UNSUPPORTED: Record<string, RegExp> = {
  active_listings: /unsupported: filter .*Metric\(\) in a filter grouped by \["listing","metric_time"\]/,
};

describe("the MetricFlow reference project", () => {
  it("compiles every metric, except the named unsupported ones", () => {
    expect(declared).toBe(59);
    expect(snapshot.metrics).toHaveLength(declared - Object.keys(UNSUPPORTED).length);
    expect(snapshot.errors).toHaveLength(Object.keys(UNSUPPORTED).length);
    for (const error of snapshot.errors) {
      expect(error.file).toBe("metricflow/simple_semantic_manifest/metrics.yaml");
      expect(error.message).toMatch(UNSUPPORTED[error.metric!]!);
    }
    // project_configuration.yaml and saved_queries.yaml carry nothing for us: read without a word.
    // What the semantic models declare and no metric uses is said, once per model.
    expect(snapshot.warnings.map((w) => w.message.replace(/^.*semantic_models\//, ""))).toEqual([
      'accounts_source.yaml: semantic model "accounts_source": measure account_balance is read by no metric (not tested)',
      'accounts_source.yaml: semantic model "accounts_source": primary_entity account is no column (no entity of type primary): no primary-key rules',
      'bookings_monthly.yaml: semantic model "bookings_monthly": primary_entity monthly_booking is no column (no entity of type primary): no primary-key rules',
      'bookings_source.yaml: semantic model "bookings_source": primary_entity booking is no column (no entity of type primary): no primary-key rules',
      'bookings_yearly.yaml: semantic model "bookings_yearly": primary_entity yearly_booking is no column (no entity of type primary): no primary-key rules',
      'revenue.yaml: semantic model "revenue": primary_entity end_of_day_revenue is no column (no entity of type primary): no primary-key rules',
    ]);
  });

  it("maps the metric types: simple/cumulative structured, ratio/derived derived", () => {
    const kinds = Object.fromEntries(snapshot.metrics.map((m) => [m.name, m.kind]));
    expect(kinds).toMatchObject({
      bookings: "structured",
      trailing_2_months_revenue: "structured",
      bookings_per_booker: "derived",
      booking_fees: "derived",
    });
    expect(snapshot.metrics.every((m) => m.source.format === "metricflow")).toBe(true);
    const p99 = snapshot.metrics.find((m) => m.name === "discrete_booking_value_p99")!;
    expect(p99.measures).toEqual([
      {
        alias: "discrete_booking_value_p99",
        function: "Percentile",
        column: "booking_value",
        expr: null,
        expr_columns: [],
        percentile: 0.99,
      },
    ]);
    expect(p99.metricflow).toMatchObject({ measures: [{ agg_params: { use_discrete_percentile: true } }] });
    expect(snapshot.metrics.find((m) => m.name === "bookings")).toMatchObject({
      table: "mf.fct_bookings",
      primary_key: null,
      timestamp: "ds",
    });
    expect(snapshot.metrics.find((m) => m.name === "instant_booking_value")!.filter).toBe("is_instant");
    // Metric() per entity: a subquery on the metric's own model.
    expect(snapshot.metrics.find((m) => m.name === "ever_active_listings")!.filter).toBe(
      "toString(listing_id) IN (SELECT toString(listing_id) FROM `mf`.`fct_bookings` GROUP BY listing_id HAVING sum((1)) > 2)",
    );
  });

  it("infers tests for every structured metric without touching a warehouse", () => {
    const structured = snapshot.metrics.filter((m) => m.kind === "structured").map((m) => m.name);
    const tested = new Set(snapshot.tests.map((t) => t.metric));
    for (const name of structured) expect(tested.has(name), name).toBe(true);
  });
});
