// Incident answers (GET /v1/reliability/incidents, /incidents/:id and the pages), selected from
// the read model's incidents; the current message of each test and status of each metric come
// from the same view. Nothing here groups or judges anew (src/incidents did, at the scan).
import type { ReliabilityStatus } from "../derive/types.js";
import { badRequest, notFound } from "../errors/app-error.js";
import type { Incident, IncidentImpact, IncidentRelationship } from "../incidents/types.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import type { ReadView } from "../read-model/read-model.js";
import type { Severity } from "../infer/types.js";
import type { PageRequest } from "./paginate.js";

export type IncidentState = "open" | "resolved";

export interface IncidentListingQuery extends PageRequest {
  state?: IncidentState | undefined;
}

export interface IncidentSummaryView {
  id: string;
  state: IncidentState;
  datasource: string;
  table: string;
  opened_at: string;
  resolved_at: string | null;
  opened_scan_id: string;
  resolved_scan_id: string | null;
  updated_at: string;
  failing_tests: number;
  metrics_unreliable: number;
  metrics_degraded: number;
}

export interface IncidentTestView {
  rule: string;
  name: string;
  check: string;
  column: string | null;
  severity: Severity;
  failing: boolean;
  since: string;
  until: string | null;
  message: string | null;
  sample_sql: string | null;
}

export interface IncidentMetricView {
  metric_name: string;
  impact: IncidentImpact;
  relationship: IncidentRelationship;
  affected: boolean;
  since: string;
  until: string | null;
  status: ReliabilityStatus;
}

export interface IncidentView extends IncidentSummaryView {
  tests: IncidentTestView[];
  metrics: IncidentMetricView[];
}

export interface IncidentListingView {
  incidents: IncidentSummaryView[];
  count: number;
  next_cursor: string | null;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

export function incidentSummary(incident: Incident): IncidentSummaryView {
  return {
    id: incident.id,
    state: incident.resolved_at === null ? "open" : "resolved",
    datasource: incident.datasource,
    table: incident.table,
    opened_at: incident.opened_at.toISOString(),
    resolved_at: iso(incident.resolved_at),
    opened_scan_id: incident.opened_scan_id,
    resolved_scan_id: incident.resolved_scan_id,
    updated_at: incident.updated_at.toISOString(),
    failing_tests: incident.tests.filter((t) => t.until === null).length,
    metrics_unreliable: incident.metrics.filter((m) => m.impact === "unreliable").length,
    metrics_degraded: incident.metrics.filter((m) => m.impact === "degraded").length,
  };
}

export function incidentView(view: ReadView, incident: Incident): IncidentView {
  return {
    ...incidentSummary(incident),
    tests: incident.tests.map((t) => {
      const observation = view.observations.get(t.check_key);
      return {
        rule: t.rule,
        name: t.name,
        check: t.check,
        column: t.column,
        severity: t.severity,
        failing: t.until === null,
        since: t.since.toISOString(),
        until: iso(t.until),
        message: observation?.message ?? null,
        sample_sql: observation?.sample_sql ?? sampleSqlOf(view, t.check_key),
      };
    }),
    metrics: incident.metrics.map((m) => ({
      metric_name: m.metric_name,
      impact: m.impact,
      relationship: m.relationship,
      affected: m.until === null,
      since: m.since.toISOString(),
      until: iso(m.until),
      status: view.statuses.get(m.metric_name)?.status ?? "unknown",
    })),
  };
}

const sampleQueries = new WeakMap<CatalogSnapshot, Map<string, string>>();

/** The check's sample query from the catalogue (the planner's adapted one is on the observation). */
function sampleSqlOf(view: ReadView, checkKey: string): string | null {
  let byKey = sampleQueries.get(view.catalog);
  if (!byKey) {
    byKey = new Map();
    for (const test of view.catalog.tests) if (!byKey.has(test.key)) byKey.set(test.key, test.sample_sql);
    sampleQueries.set(view.catalog, byKey);
  }
  return byKey.get(checkKey) ?? null;
}

/** Keyset cursor: the last item's (opened_at, id), so new incidents never shift a page already read. */
const encode = (incident: Incident) => Buffer.from(`${incident.opened_at.getTime()}:${incident.id}`, "utf8").toString("base64url");

function decode(cursor: string): { opened: number; id: string } {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const colon = text.indexOf(":");
  const opened = Number(text.slice(0, colon));
  const id = text.slice(colon + 1);
  if (colon <= 0 || !Number.isSafeInteger(opened) || id.length === 0)
    throw badRequest('invalid parameter "cursor": not a cursor this API returned');
  return { opened, id };
}

/** Newest opened first (the read model's order: opened_at desc, id desc). */
const after = (incident: Incident, key: { opened: number; id: string }) => {
  const opened = incident.opened_at.getTime();
  return opened < key.opened || (opened === key.opened && incident.id < key.id);
};

export function listIncidents(view: ReadView, query: IncidentListingQuery = {}): IncidentListingView {
  const matching = view.incidents.filter((i) => query.state === undefined || (query.state === "open") === (i.resolved_at === null));
  const key = query.cursor === undefined ? null : decode(query.cursor);
  const rest = key ? matching.filter((i) => after(i, key)) : matching;
  const page = query.limit === undefined ? rest : rest.slice(0, query.limit);
  return {
    incidents: page.map(incidentSummary),
    count: matching.length,
    next_cursor: page.length < rest.length ? encode(page.at(-1)!) : null,
  };
}

export function getIncident(view: ReadView, id: string): IncidentView {
  const incident = view.incidents.find((i) => i.id === id);
  if (!incident) throw notFound(`incident "${id}" not found`);
  return incidentView(view, incident);
}
