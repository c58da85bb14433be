// Prometheus metrics on a per-app Registry (no global state, so tests and several apps in one
// process never collide). Base units (seconds), bounded labels: metric names come from the
// catalogue, routes are patterns, never raw URLs.
import type { RequestHandler } from "express";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { IncidentSample } from "../incidents/alert-labels.js";
import { statusSeriesText, type StatusSample } from "./status-series.js";
import { RELIABILITY_STATUSES } from "../derive/types.js";

export { RELIABILITY_STATUSES };
const TRIGGERS = ["manual", "schedule", "startup", "api_run"] as const;
const OUTCOMES = ["succeeded", "failed"] as const;
/**
 * Why a cron fire started no scan on this replica:
 * - store_unavailable: the store could not elect a replica or record the scan;
 * - already_running: a scan (or a previous fire's start) was still running, so the fire joined it;
 * - not_elected: another replica won this fire (one of N-1 per fire with N replicas: normal);
 * - missed: the event loop was busy past the fire time.
 */
export const SKIP_REASONS = ["store_unavailable", "already_running", "not_elected", "missed"] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export interface Metrics {
  /** every series except the per-metric status ones, which text() appends */
  registry: Registry;
  /** The whole /metrics body (Prometheus text format). */
  text(): Promise<string>;
  /** GET /metrics: the registry's series, then the cached per-metric block, without copying it. */
  handler: RequestHandler;
  observeScan(trigger: string, outcome: "succeeded" | "failed", durationSeconds: number, finishedAt?: Date): void;
  /** A schedule fire that started no scan (metric_reliability_scan_skipped_total). */
  countSkippedScan(reason: SkipReason): void;
  /** Replaces the whole set: metrics no longer passed (removed from the catalogue) disappear. */
  setStatuses(statuses: readonly StatusSample[]): void;
  setTestCounts(counts: { passing: number; failing: number; warning: number }): void;
  /** Replaces the whole set of open incidents (metric_reliability_incident_open{table}). */
  setIncidents(incidents: readonly IncidentSample[]): void;
  observeWarehouseQuery(seconds: number): void;
  /** Extra queries a scan sent to isolate the checks of table queries ClickHouse refused (bisection). */
  countIsolationQueries(queries: number): void;
  /** Seeds the last-success gauge from the store, so every replica reports it, not only the one that scanned. */
  setLastSuccessfulScan(finishedAt: Date): void;
  /** 1/0 per dependency from the latest readiness check (/readyz, and before every scrape). */
  setDependencies(report: { store: { status: "up" | "down" } | null; warehouses: Record<string, { status: "up" | "down" }> }): void;
  /**
   * 1 while the store change listener (LISTEN, PostgreSQL only) is connected, 0 while it is not
   * and other replicas' writes are seen by the periodic sweep only. Not exported until first set.
   */
  setStoreListener(connected: boolean): void;
  /** Records http_request_duration_seconds; mount before the routes. */
  httpMiddleware: RequestHandler;
}

/** Set on res.locals by mounts that have no express route (tRPC) to name their label. */
export const ROUTE_LABEL_LOCAL = "metricsRoute";

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  // Built once per change of the statuses (see status-series.ts), not per scrape.
  let statusText = Buffer.from(statusSeriesText([]), "utf8");
  const scans = new Counter({
    name: "metric_reliability_scans_total",
    help: "Finished reliability scans by trigger and outcome.",
    labelNames: ["trigger", "outcome"] as const,
    registers: [registry],
  });
  const skipped = new Counter({
    name: "metric_reliability_scan_skipped_total",
    help: "Schedule fires that started no scan on this replica, by reason (store_unavailable, already_running, not_elected, missed).",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  const scanDuration = new Histogram({
    name: "metric_reliability_scan_duration_seconds",
    help: "Wall-clock duration of reliability scans.",
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
    registers: [registry],
  });
  const lastSuccess = new Gauge({
    name: "metric_reliability_last_successful_scan_timestamp_seconds",
    help: "Unix time at which the last successful scan finished.",
    registers: [registry],
  });
  const tests = new Gauge({
    name: "metric_reliability_tests",
    help: "Inferred tests by status in the last successful scan.",
    labelNames: ["status"] as const,
    registers: [registry],
  });
  const incidentOpen = new Gauge({
    name: "metric_reliability_incident_open",
    help: "One series per open incident, by root table: the number of metrics it makes unreliable (0: it only degrades metrics).",
    labelNames: ["table"] as const,
    registers: [registry],
  });
  const incidentAffected = new Gauge({
    name: "metric_reliability_incident_affected_metrics",
    help: "One series per open incident, by root table: the number of metrics it makes unreliable or degraded.",
    labelNames: ["table"] as const,
    registers: [registry],
  });
  const queryDuration = new Histogram({
    name: "metric_reliability_warehouse_query_duration_seconds",
    help: "Duration of warehouse queries issued by scans.",
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [registry],
  });
  const isolationQueries = new Counter({
    name: "metric_reliability_isolation_queries_total",
    help: "Extra warehouse queries sent to isolate checks whose SQL failed on the data (bisection of a refused table query).",
    registers: [registry],
  });
  const storeUp = new Gauge({
    name: "metric_reliability_store_up",
    help: "1 when the history store (PostgreSQL or PGlite) answered the latest readiness check, else 0.",
    registers: [registry],
  });
  let storeListener: Gauge | null = null;
  const warehouseUp = new Gauge({
    name: "metric_reliability_warehouse_up",
    help: "1 when the datasource's ClickHouse answered the latest readiness check, else 0. A down warehouse fails scans but keeps the replica ready.",
    labelNames: ["datasource"] as const,
    registers: [registry],
  });
  const http = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request duration by method, route pattern and status code.",
    labelNames: ["method", "route", "status_code"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });

  // Zero-initialised so rate()/increase() work before the first scan of each kind.
  for (const trigger of TRIGGERS) for (const outcome of OUTCOMES) scans.inc({ trigger, outcome }, 0);
  for (const reason of SKIP_REASONS) skipped.inc({ reason }, 0);

  // One labelled child per (method, route pattern, status), found by one string: prom-client
  // hashes the label object on every observation, a tenth of a cached read's cost.
  const httpChildren = new Map<string, ReturnType<typeof http.labels>>();
  const httpMiddleware: RequestHandler = (req, res, next) => {
    const started = performance.now();
    res.once("finish", () => {
      const routePath: unknown = (req.route as { path?: unknown } | undefined)?.path;
      const local: unknown = res.locals[ROUTE_LABEL_LOCAL];
      const route = typeof routePath === "string" ? routePath : typeof local === "string" ? local : "unmatched";
      const key = `${req.method} ${res.statusCode} ${route}`;
      let child = httpChildren.get(key);
      if (!child) httpChildren.set(key, (child = http.labels({ method: req.method, route, status_code: String(res.statusCode) })));
      child.observe((performance.now() - started) / 1000);
    });
    next();
  };

  return {
    registry,
    observeScan(trigger, outcome, durationSeconds, finishedAt) {
      scans.inc({ trigger, outcome });
      scanDuration.observe(durationSeconds);
      if (outcome === "succeeded") lastSuccess.set((finishedAt ?? new Date()).getTime() / 1000);
    },
    countSkippedScan(reason) {
      skipped.inc({ reason });
    },
    setStatuses(statuses) {
      statusText = Buffer.from(statusSeriesText(statuses), "utf8");
    },
    async text() {
      return `${await registry.metrics()}\n${statusText.toString("utf8")}`;
    },
    handler: async (_req, res) => {
      const head = await registry.metrics();
      res.type(registry.contentType);
      res.write(`${head}\n`);
      res.end(statusText);
    },
    setTestCounts(counts) {
      tests.set({ status: "passing" }, counts.passing);
      tests.set({ status: "failing" }, counts.failing);
      tests.set({ status: "warning" }, counts.warning);
    },
    setIncidents(incidents) {
      // Resolved incidents disappear (their series go stale), rather than staying at 0.
      incidentOpen.reset();
      incidentAffected.reset();
      for (const incident of incidents) {
        incidentOpen.set({ table: incident.table }, incident.unreliable);
        incidentAffected.set({ table: incident.table }, incident.affected);
      }
    },
    observeWarehouseQuery(seconds) {
      queryDuration.observe(seconds);
    },
    countIsolationQueries(queries) {
      isolationQueries.inc(queries);
    },
    setStoreListener(connected) {
      storeListener ??= new Gauge({
        name: "metric_reliability_store_listener_connected",
        help: "1 while this replica listens to the store's change notifications (other replicas' scans and feedback seen within a second), 0 while it does not and only the periodic sweep (every 30 s) sees them. Absent on the embedded store.",
        registers: [registry],
      });
      storeListener.set(connected ? 1 : 0);
    },
    setLastSuccessfulScan(finishedAt) {
      lastSuccess.set(finishedAt.getTime() / 1000);
    },
    setDependencies(report) {
      if (report.store) storeUp.set(report.store.status === "up" ? 1 : 0);
      for (const [datasource, check] of Object.entries(report.warehouses)) warehouseUp.set({ datasource }, check.status === "up" ? 1 : 0);
    },
    httpMiddleware,
  };
}
