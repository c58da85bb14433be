// What Prometheus says about open incidents: one gauge per root table (the metrics it makes
// unreliable), and the `table` label of each metric the open incidents explain, so that one
// TableIncident alert inhibits the per-metric alerts (prometheus/alertmanager-inhibit.yml).
import { rootLabel } from "./group-problems.js";
import type { Incident } from "./types.js";

export interface IncidentSample {
  /** rootLabel: `db.table`, or `datasource:db.table` outside the default datasource */
  table: string;
  /** metrics it makes unreliable now */
  unreliable: number;
  /** metrics it affects now (unreliable or degraded) */
  affected: number;
}

const isOpen = (incident: Incident) => incident.resolved_at === null;

export function incidentSamples(incidents: Iterable<Incident>): IncidentSample[] {
  const samples = new Map<string, IncidentSample>();
  for (const incident of incidents) {
    if (!isOpen(incident)) continue;
    const table = rootLabel(incident.datasource, incident.table);
    const current = incident.metrics.filter((m) => m.until === null);
    samples.set(table, { table, unreliable: current.filter((m) => m.impact === "unreliable").length, affected: current.length });
  }
  return [...samples.values()].sort((a, b) => (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
}

/**
 * metric -> the table label its status series carries. Every failing test belongs to the open
 * incident of its root table, so a metric affected by open incidents is wholly explained by them;
 * one that reads two broken tables carries the first label (either alert explains it). Metrics
 * not affected by any open incident are absent (their series carry no table label).
 */
export function metricTables(incidents: Iterable<Incident>): Map<string, string> {
  const tables = new Map<string, string>();
  for (const incident of incidents) {
    if (!isOpen(incident)) continue;
    const table = rootLabel(incident.datasource, incident.table);
    for (const m of incident.metrics) {
      if (m.until !== null) continue;
      const held = tables.get(m.metric_name);
      if (held === undefined || table < held) tables.set(m.metric_name, table);
    }
  }
  return tables;
}
