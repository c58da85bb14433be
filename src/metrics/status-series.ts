// The per-metric series (a state set of 4 statuses plus safe_to_use: five series a metric, 50,000
// at 10,000 metrics) change only when the read model does, so their exposition text is built once
// then, not on every scrape as prom-client's registry would. Same format, appended after it.
import { RELIABILITY_STATUSES } from "../derive/types.js";

export interface StatusSample {
  metric_name: string;
  status: string;
  safe_to_use?: boolean;
  /**
   * The root table of the open incident that explains every failing test of the metric
   * (src/incidents/alert-labels.ts): its status series carry it as `table`, so Alertmanager can
   * inhibit the metric's alerts while that table's TableIncident fires. Absent: no label.
   */
  table?: string | undefined;
}

/** Prometheus label value escaping: backslash, double quote, newline. */
const label = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

export function statusSeriesText(statuses: readonly StatusSample[]): string {
  const state: string[] = [
    "# HELP metric_reliability_status Reliability status of each catalogue metric as a state set: 1 for the current status, 0 for the others.",
    "# TYPE metric_reliability_status gauge",
  ];
  const safe: string[] = [
    "# HELP metric_reliability_safe_to_use 1 when the metric is safe to use (healthy or degraded), else 0.",
    "# TYPE metric_reliability_safe_to_use gauge",
  ];
  for (const s of statuses) {
    const metric = label(s.metric_name);
    // One table at a time per metric, from the catalogue: the series count stays 4 per metric.
    const table = s.table ? `,table="${label(s.table)}"` : "";
    for (const candidate of RELIABILITY_STATUSES)
      state.push(`metric_reliability_status{metric="${metric}",status="${candidate}"${table}} ${s.status === candidate ? 1 : 0}`);
    const isSafe = (s.safe_to_use ?? (s.status === "healthy" || s.status === "degraded")) && s.status !== "unknown";
    safe.push(`metric_reliability_safe_to_use{metric="${metric}"} ${isSafe ? 1 : 0}`);
  }
  return `${state.join("\n")}\n\n${safe.join("\n")}\n`;
}
