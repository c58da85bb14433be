import { describe, expect, it } from "vitest";
import { createMetrics, SKIP_REASONS } from "../../src/metrics/prometheus.js";

describe("createMetrics", () => {
  it("uses its own registry", async () => {
    const a = createMetrics();
    const b = createMetrics();
    expect(a.registry).not.toBe(b.registry);
    expect(await a.registry.metrics()).toContain("process_cpu_user_seconds_total");
  });

  it("exports the status state set and replaces it as a whole", async () => {
    const m = createMetrics();
    m.setStatuses([
      { metric_name: "gross_revenue", status: "degraded" },
      { metric_name: "order_count", status: "unreliable", safe_to_use: false },
    ]);
    let text = await m.text();
    expect(text).toContain('metric_reliability_status{metric="gross_revenue",status="degraded"} 1');
    expect(text).toContain('metric_reliability_status{metric="gross_revenue",status="healthy"} 0');
    expect(text).toContain('metric_reliability_status{metric="gross_revenue",status="unknown"} 0');
    expect(text).toContain('metric_reliability_status{metric="order_count",status="unreliable"} 1');
    expect(text).toContain('metric_reliability_safe_to_use{metric="gross_revenue"} 1');
    expect(text).toContain('metric_reliability_safe_to_use{metric="order_count"} 0');

    m.setStatuses([{ metric_name: "gross_revenue", status: "unknown" }]);
    text = await m.text();
    expect(text).not.toContain('metric="order_count"');
    expect(text).toContain('metric_reliability_status{metric="gross_revenue",status="unknown"} 1');
    expect(text).toContain('metric_reliability_safe_to_use{metric="gross_revenue"} 0');
  });

  it("exports open incidents by table, and the table label of the metrics they explain", async () => {
    const m = createMetrics();
    m.setStatuses([
      { metric_name: "gross_revenue", status: "unreliable", table: "shop.orders" },
      { metric_name: "refund_rate", status: "unreliable" },
    ]);
    m.setIncidents([{ table: "shop.orders", unreliable: 50, affected: 52 }]);
    let text = await m.text();
    expect(text).toContain('metric_reliability_incident_open{table="shop.orders"} 50');
    expect(text).toContain('metric_reliability_incident_affected_metrics{table="shop.orders"} 52');
    // Still four status series a metric: the label rides on them, it does not add any.
    expect(text.match(/metric_reliability_status\{metric="gross_revenue",[^}]*table="shop.orders"\}/g)).toHaveLength(4);
    expect(text).toContain('metric_reliability_status{metric="refund_rate",status="unreliable"} 1');
    expect(text).toContain('metric_reliability_safe_to_use{metric="gross_revenue"} 0');

    // Resolved: its series go away rather than staying at 0.
    m.setIncidents([]);
    m.setStatuses([{ metric_name: "gross_revenue", status: "healthy" }]);
    text = await m.text();
    expect(text).not.toContain("metric_reliability_incident_open{");
    expect(text).not.toContain('table="shop.orders"');
  });

  it("exports scan, test and warehouse series", async () => {
    const m = createMetrics();
    m.observeScan("manual", "succeeded", 2.5, new Date("2024-05-01T10:00:00Z"));
    m.observeScan("schedule", "failed", 1);
    m.setTestCounts({ passing: 7, failing: 2, warning: 1 });
    m.observeWarehouseQuery(0.2);
    const text = await m.registry.metrics();
    expect(text).toContain('metric_reliability_scans_total{trigger="manual",outcome="succeeded"} 1');
    expect(text).toContain('metric_reliability_scans_total{trigger="schedule",outcome="failed"} 1');
    expect(text).toContain('metric_reliability_scans_total{trigger="startup",outcome="succeeded"} 0');
    expect(text).toContain("metric_reliability_scan_duration_seconds_count 2");
    expect(text).toContain("metric_reliability_last_successful_scan_timestamp_seconds 1714557600");
    expect(text).toContain('metric_reliability_tests{status="failing"} 2');
    expect(text).toContain('metric_reliability_tests{status="passing"} 7');
    expect(text).toContain("metric_reliability_warehouse_query_duration_seconds_count 1");
  });

  it("counts schedule fires that started no scan, every reason present from the start", async () => {
    const m = createMetrics();
    let text = await m.registry.metrics();
    for (const reason of SKIP_REASONS) expect(text).toContain(`metric_reliability_scan_skipped_total{reason="${reason}"} 0`);
    m.countSkippedScan("store_unavailable");
    m.countSkippedScan("store_unavailable");
    m.countSkippedScan("not_elected");
    text = await m.registry.metrics();
    expect(text).toContain('metric_reliability_scan_skipped_total{reason="store_unavailable"} 2');
    expect(text).toContain('metric_reliability_scan_skipped_total{reason="not_elected"} 1');
    expect(text).toContain('metric_reliability_scan_skipped_total{reason="already_running"} 0');
    expect(SKIP_REASONS).toEqual(["store_unavailable", "already_running", "not_elected", "missed"]);
  });

  it("counts the extra queries of bisection, from 0", async () => {
    const m = createMetrics();
    expect(await m.registry.metrics()).toContain("metric_reliability_isolation_queries_total 0");
    m.countIsolationQueries(7);
    m.countIsolationQueries(0);
    m.countIsolationQueries(3);
    expect(await m.registry.metrics()).toContain("metric_reliability_isolation_queries_total 10");
  });
});
