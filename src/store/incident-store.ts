// Incidents in the store (src/incidents decides what they are). completeScan reads the open ones
// under its lock, reconciles them with the scan's problems and writes the incidents that changed,
// whole (their rows, tests and metrics), in its one transaction; unchanged incidents are not
// touched, so a scan of unchanged data writes nothing here.
import { randomUUID } from "node:crypto";
import { nextIncidents } from "../incidents/next-incidents.js";
import { reconcileIncidents } from "../incidents/reconcile.js";
import type { Incident, IncidentImpact, IncidentRelationship, TableProblem } from "../incidents/types.js";
import type { Severity } from "../infer/types.js";
import { createIntern } from "../intern.js";
import type { Sql } from "./sql-session.js";
import { insertRows } from "./unnest.js";

interface IncidentRow {
  id: string;
  datasource: string;
  table_name: string;
  opened_at: Date;
  resolved_at: Date | null;
  opened_scan_id: string;
  resolved_scan_id: string | null;
  updated_at: Date;
}

interface TestRow {
  incident_id: string;
  check_key: string;
  rule: string;
  name: string;
  check: string;
  column_name: string | null;
  severity: string;
  since: Date;
  until: Date | null;
}

interface MetricRow {
  incident_id: string;
  metric: string;
  impact: string;
  relationship: string;
  since: Date;
  until: Date | null;
}

/** Every incident kept (open: `openOnly`), newest opened first (then id, bytewise, as incidentOrder), with its tests and metrics. */
export async function readIncidents(sql: Sql, options: { openOnly?: boolean } = {}): Promise<Incident[]> {
  const where = options.openOnly ? `WHERE "resolved_at" IS NULL` : "";
  const within = options.openOnly ? `WHERE "incident_id" IN (SELECT "id" FROM "incidents" WHERE "resolved_at" IS NULL)` : "";
  const { rows } = await sql<IncidentRow>(`SELECT * FROM "incidents" ${where} ORDER BY "opened_at" DESC, "id" COLLATE "C" DESC`);
  if (rows.length === 0) return [];
  const incidents = new Map<string, Incident>(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        datasource: r.datasource,
        table: r.table_name,
        opened_at: r.opened_at,
        resolved_at: r.resolved_at,
        opened_scan_id: r.opened_scan_id,
        resolved_scan_id: r.resolved_scan_id,
        updated_at: r.updated_at,
        tests: [],
        metrics: [],
      },
    ]),
  );
  // Many incidents' tests and metrics share their rule, severity, impact and relationship.
  const intern = createIntern();
  const tests = await sql<TestRow>(
    `SELECT "incident_id", "check_key", "rule", "name", "check", "column_name", "severity", "since", "until"
       FROM "incident_tests" ${within} ORDER BY "incident_id", "position"`,
  );
  for (const t of tests.rows) {
    incidents.get(t.incident_id)?.tests.push({
      check_key: t.check_key,
      rule: intern(t.rule),
      name: t.name,
      check: t.check,
      column: t.column_name === null ? null : intern(t.column_name),
      severity: intern(t.severity) as Severity,
      since: t.since,
      until: t.until,
    });
  }
  const metrics = await sql<MetricRow>(
    `SELECT "incident_id", "metric", "impact", "relationship", "since", "until"
       FROM "incident_metrics" ${within} ORDER BY "incident_id", "position"`,
  );
  for (const m of metrics.rows) {
    incidents.get(m.incident_id)?.metrics.push({
      metric_name: m.metric,
      impact: intern(m.impact) as IncidentImpact,
      relationship: intern(m.relationship) as IncidentRelationship,
      since: m.since,
      until: m.until,
    });
  }
  return [...incidents.values()];
}

/** Writes each incident whole: its row upserted, its tests and metrics replaced. */
export async function writeIncidents(sql: Sql, incidents: readonly Incident[]): Promise<void> {
  if (incidents.length === 0) return;
  const ids = incidents.map((i) => i.id);
  await insertRows(sql, {
    table: "incidents",
    columns: {
      id: "text",
      datasource: "text",
      table_name: "text",
      opened_at: "timestamptz",
      resolved_at: "timestamptz",
      opened_scan_id: "text",
      resolved_scan_id: "text",
      updated_at: "timestamptz",
    },
    rows: incidents.map((i) => [
      i.id,
      i.datasource,
      i.table,
      i.opened_at.toISOString(),
      i.resolved_at?.toISOString() ?? null,
      i.opened_scan_id,
      i.resolved_scan_id,
      i.updated_at.toISOString(),
    ]),
    onConflict: `ON CONFLICT ("id") DO UPDATE SET "resolved_at" = EXCLUDED."resolved_at", "resolved_scan_id" = EXCLUDED."resolved_scan_id", "updated_at" = EXCLUDED."updated_at"`,
  });
  await sql(`DELETE FROM "incident_tests" WHERE "incident_id" = ANY($1::text[])`, [ids]);
  await sql(`DELETE FROM "incident_metrics" WHERE "incident_id" = ANY($1::text[])`, [ids]);
  await insertRows(sql, {
    table: "incident_tests",
    columns: {
      incident_id: "text",
      check_key: "text",
      position: "int4",
      rule: "text",
      name: "text",
      check: "text",
      column_name: "text",
      severity: "text",
      since: "timestamptz",
      until: "timestamptz",
    },
    rows: incidents.flatMap((i) =>
      i.tests.map((t, position) => [
        i.id,
        t.check_key,
        position,
        t.rule,
        t.name,
        t.check,
        t.column,
        t.severity,
        t.since.toISOString(),
        t.until?.toISOString() ?? null,
      ]),
    ),
  });
  await insertRows(sql, {
    table: "incident_metrics",
    columns: {
      incident_id: "text",
      metric: "text",
      position: "int4",
      impact: "text",
      relationship: "text",
      since: "timestamptz",
      until: "timestamptz",
    },
    rows: incidents.flatMap((i) =>
      i.metrics.map((m, position) => [
        i.id,
        m.metric_name,
        position,
        m.impact,
        m.relationship,
        m.since.toISOString(),
        m.until?.toISOString() ?? null,
      ]),
    ),
  });
}

/**
 * The open incidents as this store last read or wrote them, and what their rows said then (id
 * and updated_at, which every change of an incident moves: reconcile.ts). A scan reads only those
 * two columns and, when they match, uses these instead of reading every open incident's tests
 * and metrics back (16,000 rows at 10,000 metrics with a hundred broken tables, on every scan).
 */
export interface OpenIncidentsMemo {
  current: { heads: string; incidents: Incident[] } | null;
}

const headsOf = (rows: readonly { id: string; updated_at: Date }[]): string =>
  rows
    .map((r) => `${r.id}@${r.updated_at.getTime()}`)
    .sort()
    .join(",");

/**
 * Inside completeScan's transaction, under its lock (no other completion runs): the open
 * incidents meet this scan's problems. Returns the incidents that changed, as written. A memo
 * that does not match the store (another replica's scan, a rolled-back write) is not used.
 */
export async function updateIncidents(
  sql: Sql,
  problems: readonly TableProblem[],
  scanId: string,
  at: Date,
  memo?: OpenIncidentsMemo,
): Promise<Incident[]> {
  let open: Incident[] | null = null;
  if (memo?.current) {
    const { rows } = await sql<{ id: string; updated_at: Date }>(`SELECT "id", "updated_at" FROM "incidents" WHERE "resolved_at" IS NULL`);
    if (headsOf(rows) === memo.current.heads) open = memo.current.incidents;
  }
  open ??= await readIncidents(sql, { openOnly: true });
  const changed = reconcileIncidents(open, problems, { at, scanId, newId: randomUUID });
  await writeIncidents(sql, changed);
  if (memo) {
    const next = nextIncidents(open, changed).filter((i) => i.resolved_at === null);
    memo.current = { heads: headsOf(next), incidents: next };
  }
  return changed;
}
