import { NO_FINDINGS } from "../../src/infer/catalog-findings.js";
import { describe, expect, it } from "vitest";
import { compilerStatusView } from "../../src/services/compiler-service.js";
import { buildMetricStatus, buildStatusListing } from "../../src/services/status-listing.js";
import { scanView } from "../../src/services/views.js";
import { result, snapshot, stored } from "./fixtures.js";

describe("buildStatusListing", () => {
  it("covers every catalogue metric; never-scanned ones are unknown; removed ones are dropped", () => {
    const listing = buildStatusListing(
      ["gross_revenue", "order_count", "new_metric"],
      [stored("gross_revenue", "healthy"), stored("order_count", "unreliable"), stored("removed_metric", "degraded")],
    );
    expect(listing.summary).toEqual({ total: 3, healthy: 1, degraded: 0, unreliable: 1, unknown: 1 });
    expect(listing.metrics).toEqual([
      {
        metric_name: "gross_revenue",
        status: "healthy",
        safe_to_use: true,
        checked_at: "2024-05-01T10:00:00.000Z",
        since: "2024-04-30T08:00:00.000Z",
      },
      {
        metric_name: "order_count",
        status: "unreliable",
        safe_to_use: false,
        checked_at: "2024-05-01T10:00:00.000Z",
        since: "2024-04-30T08:00:00.000Z",
      },
      { metric_name: "new_metric", status: "unknown", safe_to_use: false, checked_at: null, since: null },
    ]);
  });

  it("keeps degraded metrics safe to use", () => {
    expect(buildStatusListing(["m"], [stored("m", "degraded")]).metrics[0]).toMatchObject({ status: "degraded", safe_to_use: true });
  });
});

describe("buildMetricStatus", () => {
  it("lists failing and warning tests of the metric, with history", () => {
    const view = buildMetricStatus(
      "gross_revenue",
      stored("gross_revenue", "degraded"),
      [result("gross_revenue", "passing"), result("gross_revenue", "warning", "dimension_not_null"), result("other", "failing")],
      [
        { status: "degraded", from: new Date("2024-04-30T08:00:00Z"), to: null },
        { status: "healthy", from: new Date("2024-04-01T00:00:00Z"), to: new Date("2024-04-30T08:00:00Z") },
      ],
    );
    expect(view).toMatchObject({
      metric_name: "gross_revenue",
      status: "degraded",
      safe_to_use: true,
      scan_id: stored("x", "healthy").scan_id,
    });
    expect(view.tests).toEqual({ total: 2, passing: 1, failing: 0, warning: 1 });
    expect(view.failing_tests.map((t) => t.rule)).toEqual(["dimension_not_null"]);
    expect(Object.keys(view.failing_tests[0]!)).toEqual([
      "metric",
      "rule",
      "name",
      "severity",
      "confidence",
      "status",
      "rows_affected",
      "rows_total",
      "message",
      "sample_sql",
      "check",
    ]);
    expect(view.history).toEqual([
      { status: "degraded", from: "2024-04-30T08:00:00.000Z", to: null },
      { status: "healthy", from: "2024-04-01T00:00:00.000Z", to: "2024-04-30T08:00:00.000Z" },
    ]);
  });

  it("describes a never-scanned metric as unknown", () => {
    expect(buildMetricStatus("m", null, [], [])).toEqual({
      metric_name: "m",
      status: "unknown",
      safe_to_use: false,
      checked_at: null,
      since: null,
      scan_id: null,
      tests: { total: 0, passing: 0, failing: 0, warning: 0 },
      failing_tests: [],
      history: [],
    });
  });
});

describe("views", () => {
  it("serialises scans and the compiler status with ISO dates", () => {
    const started = new Date("2024-05-01T10:00:00Z");
    expect(
      scanView({
        scan_id: "s",
        trigger: "manual",
        status: "running",
        started_at: started,
        finished_at: null,
        error: null,
        summary: null,
        catalog_version: null,
      }),
    ).toEqual({
      scan_id: "s",
      status: "running",
      trigger: "manual",
      started_at: "2024-05-01T10:00:00.000Z",
      finished_at: null,
      error: null,
      summary: null,
    });
    const status = compilerStatusView(snapshot(), NO_FINDINGS);
    expect(status).toMatchObject({
      count: 1,
      compiled_at: "2024-05-01T09:00:00.000Z",
      errors: [{ metric: "broken_metric", file: "metrics/bad.yaml" }],
    });
    expect(status.metrics[0]).toMatchObject({ name: "gross_revenue", kind: "structured", datasource: "default", joins: [] });
  });
});
