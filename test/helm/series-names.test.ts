// Every metric_reliability_* series the Grafana dashboard and the alert rules query is one the
// daemon exports (by its exposition's # TYPE lines), so a renamed or removed series cannot leave a
// panel or an alert silently empty; and the outage series each have a panel.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createMetrics } from "../../src/metrics/prometheus.js";
import { RULES_FILE } from "../prometheus/scaled-rules.js";

const DASHBOARD = path.resolve(import.meta.dirname, "../../helm/metric-reliability/dashboards/metric-reliability.json");

interface Panel {
  title: string;
  targets?: { expr: string }[];
}

/** The series names an expression reads; histogram suffixes name their histogram. */
const seriesIn = (text: string) =>
  new Set([...text.matchAll(/\bmetric_reliability_[a-z_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, "")));

async function exported(): Promise<Set<string>> {
  const metrics = createMetrics();
  metrics.setStatuses([{ metric_name: "m", status: "healthy" }]);
  // PostgreSQL replicas only (the embedded store has no change listener): registered on first use.
  metrics.setStoreListener(true);
  const text = await metrics.text();
  return new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
}

describe("series the dashboard and the alerts read", () => {
  it("are all exported by the daemon", async () => {
    const names = await exported();
    const panels = (JSON.parse(readFileSync(DASHBOARD, "utf8")) as { panels: Panel[] }).panels;
    const queried = seriesIn(panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)).join("\n"));
    const alerted = seriesIn(readFileSync(RULES_FILE, "utf8"));
    expect(queried.size).toBeGreaterThan(5);
    expect([...queried].filter((n) => !names.has(n))).toEqual([]);
    expect([...alerted].filter((n) => !names.has(n))).toEqual([]);
    // An outage that starts no scan, and a dependency that is down, each have a panel and an alert.
    for (const series of ["metric_reliability_scan_skipped_total", "metric_reliability_store_up"]) {
      expect(queried.has(series), series).toBe(true);
      expect(alerted.has(series), series).toBe(true);
    }
    expect(queried.has("metric_reliability_warehouse_up")).toBe(true);
  });
});
