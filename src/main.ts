// Composition root: the only place that wires config, warehouses, store, services and transports.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createHttpApp } from "./api/http-app.js";
import { createWebApp } from "./web/web-app.js";
import { createSessionRevocations } from "./web/session-revocations.js";
import { bindHttpServer, PortInUseError } from "./api/http-server.js";
import { embeddedApiKey } from "./api-keys.js";
import { ConfigError, loadConfig, type Config } from "./config/config.js";
import { createReadiness } from "./health/readiness.js";
import { liveHeapReader } from "./health/heap-reading.js";
import { memoryBudget, toMb } from "./health/memory-budget.js";
import { createLogger, type Logger } from "./logger.js";
import { createMetrics } from "./metrics/prometheus.js";
import { checkCatalogSql } from "./scan/check-sql.js";
import { createFindingsHolder, NO_FINDINGS } from "./infer/catalog-findings.js";
import { abortOrphanedScans, currentProcess } from "./scan/orphans.js";
import { SCAN_ORPHANED_AFTER_MS } from "./scan/scan-service.js";
import { startScheduler, type Scheduler } from "./scheduler/scheduler.js";
import { createServices } from "./create-services.js";
import { loadCatalogSnapshot } from "./services/load-catalog.js";
import { createStore } from "./store/prisma-store.js";
import { createWarehouses } from "./warehouse/create-warehouses.js";

/**
 * How often every replica asks the store for a newer succeeded scan (one indexed row; the read
 * model reloads only then) and aborts scans whose process died. On PostgreSQL the change listener
 * tells of other replicas' writes within a second; the sweep is the fallback while it is down.
 */
const STORE_SWEEP_MS = 30_000;
/**
 * PostgreSQL: how often a replica looks for running scans whose owner's store session is gone
 * (one statement over the few running scans and pg_locks), so a killed peer's scan reads
 * `aborted` within seconds.
 */
const LOST_SESSION_SWEEP_MS = 2_000;
/** Status periods each metric keeps in memory for GET /v1/reliability/status/:name. */
const HISTORY_LIMIT = 50;

export interface Daemon {
  port: number;
  apiKeys: string[];
  stop(): Promise<void>;
}

export async function startDaemon(config: Config, logger: Logger): Promise<Daemon> {
  // The port first: a busy PORT must not cost a store migration or leave a half-started daemon.
  const http = await bindHttpServer({ port: config.PORT, host: config.HOST, requestTimeoutSeconds: config.REQUEST_TIMEOUT_SECONDS });
  try {
    return await startOnServer(config, logger, http);
  } catch (error) {
    http.server.close();
    throw error;
  }
}

async function startOnServer(config: Config, logger: Logger, http: Awaited<ReturnType<typeof bindHttpServer>>): Promise<Daemon> {
  const { server, port } = http;
  // The heap before the catalogue, so the memory budget sees what the catalogue itself keeps.
  const readHeap = config.MEMORY_CHECK ? liveHeapReader() : null;
  const heapBefore = readHeap?.();
  const compileStarted = performance.now();
  const snapshot = await loadCatalogSnapshot(
    config.METRICS_DIR,
    new Date(),
    { metricflowDatabase: config.METRICFLOW_DATABASE },
    config.anomalyDefaults,
  );
  const compileMs = Math.round(performance.now() - compileStarted);
  for (const error of snapshot.errors) logger.warn({ file: error.file, metric: error.metric }, error.message);
  for (const warning of snapshot.warnings) logger.warn({ file: warning.file }, warning.message);
  logger.info(
    {
      metrics: snapshot.metrics.length,
      tests: snapshot.tests.length,
      errors: snapshot.errors.length,
      warnings: snapshot.warnings.length,
      ms: compileMs,
    },
    "catalogue compiled",
  );
  if (readHeap && heapBefore) {
    const heap = readHeap();
    const budget = memoryBudget(heapBefore, heap, { metrics: snapshot.metrics.length, tests: snapshot.tests.length });
    if (!budget.fits) throw new ConfigError(budget.message);
    logger.info(
      { catalogue_mb: toMb(budget.catalogueBytes), scan_needs_mb: toMb(budget.neededBytes), limit_mb: toMb(heap.limitBytes) },
      "the catalogue leaves a scan room in the heap",
    );
  }

  const apiKeys = [...config.API_KEYS];
  if (apiKeys.length === 0 && config.API_READONLY_KEYS.length === 0) {
    if (config.DATABASE_URL) throw new ConfigError("API_KEYS: no API key configured (required unless running fully embedded)");
    const generated = await embeddedApiKey(config.DATA_DIR);
    apiKeys.push(generated.key);
    // Printed once, on creation, to the terminal only; never through the logger.
    if (generated.created) process.stdout.write(`\nGenerated API key (kept in ${generated.file}):\n  ${generated.key}\n\n`);
    else logger.info({ file: generated.file }, "using the generated API key kept in the data directory");
  }

  const warehouses = await createWarehouses(config, logger);
  // Filters and expressions ClickHouse cannot parse are found now where the warehouse is up
  // (else by the first scan): their metrics stay unknown and /v1/compiler/ir says why. In the
  // background: a slow warehouse must not hold up the start.
  const findings = createFindingsHolder();
  void checkCatalogSql(snapshot, NO_FINDINGS, warehouses, { queryIdPrefix: "catalog-load", maxQuerySize: config.MAX_QUERY_SIZE }).then(
    (sql) => {
      // A scan that finished first knows as much (it asked the same fragments): keep its findings.
      if (findings.current() === NO_FINDINGS) findings.set({ ...NO_FINDINGS, ...sql });
      for (const error of sql.sql_errors.values()) logger.warn({ file: error.file, metric: error.metric }, error.message);
    },
    (error: unknown) => logger.warn({ err: error }, "could not check the catalogue's SQL against the warehouse; the first scan will"),
  );
  const store = await createStore({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    logger,
    transactionTimeoutMs: config.STORE_TRANSACTION_TIMEOUT_SECONDS * 1000,
  });
  // Scans whose process died are aborted here, before any request, and on every sweep: at once
  // when it was a process of this host (a restart aborts its predecessor's scan), after
  // SCAN_ORPHANED_AFTER_MS without heartbeat otherwise; a live replica's scan is left alone.
  const self = currentProcess();
  const abortOrphans = async () => {
    const aborted = await abortOrphanedScans(store, { self, staleBefore: new Date(Date.now() - SCAN_ORPHANED_AFTER_MS) });
    if (aborted.deadProcess + aborted.stale + aborted.lostSession > 0)
      logger.warn(aborted, "marked scans left running by a dead process as aborted");
  };
  await abortOrphans();

  const metrics = createMetrics();
  const { readModel, scanService, services, browse, freshness } = createServices({
    getSnapshot: () => snapshot,
    findings,
    warehouses,
    store,
    logger,
    metrics,
    historyLimit: HISTORY_LIMIT,
    scan: {
      concurrency: config.SCAN_CONCURRENCY,
      maxQuerySize: config.MAX_QUERY_SIZE,
      retentionDays: config.HISTORY_RETENTION_DAYS,
      incremental: config.SCAN_INCREMENTAL,
      owner: self,
    },
    // One line per scan another replica completed (how long this replica took to serve it).
    onRefreshed: (how, ms) => logger.info({ how, ms: Math.round(ms), scan_id: readModel.view().scan?.scan_id }, "read model refreshed"),
  });
  // Once loaded, the read model keeps its view through store outages: the replica can serve.
  let readModelLoaded = false;
  await readModel.refresh({ force: true });
  readModelLoaded = true;
  const refresh = (force: boolean) =>
    readModel.refresh({ force }).catch((error: unknown) => logger.warn({ err: error }, "refreshing the read model from the store failed"));
  const sweepTimer = setInterval(() => {
    void refresh(false);
    abortOrphans().catch((error: unknown) => logger.warn({ err: error }, "aborting orphaned scans failed"));
  }, STORE_SWEEP_MS);
  sweepTimer.unref();
  // Other replicas' commits, as they happen (PostgreSQL): a scan or a new catalogue version is a
  // refresh (a reload only when the store's newest succeeded scan is not the view's, so this
  // replica's own scan, already applied, costs one row); a feedback reloads whole, whatever the
  // read model derives from it. On (re)connect: notifications may have been missed, refresh.
  const feed = store.watch({
    onChange(change) {
      // This replica's own scan is applied by the scan service (applyScan) before it counts as done.
      if (change.own && (change.kind === "scan" || change.kind === "verdicts")) return;
      logger.debug({ change }, "store change from a replica");
      // Another replica's feedback re-scored that check's series and stored it: what this replica
      // holds of it is not current (of every series, when the notification names no check).
      if ((change.kind === "feedback" || change.kind === "verdicts") && !change.own) readModel.verdicts.forget(change.check_key);
      // The re-scored series alone changes no status: only a feedback reloads the view.
      if (change.kind !== "verdicts") void refresh(change.kind === "feedback");
    },
    onConnection(connected) {
      metrics.setStoreListener(connected);
      if (connected) void refresh(false);
    },
  });
  if (feed) metrics.setStoreListener(feed.connected());
  const lostSessionTimer = feed
    ? setInterval(() => {
        store
          .abortScansOfLostSessions()
          .then(
            (count) => count > 0 && logger.warn({ lostSession: count }, "marked scans of replicas whose store session is gone as aborted"),
          )
          .catch((error: unknown) => logger.warn({ err: error }, "aborting scans of lost sessions failed"));
      }, LOST_SESSION_SWEEP_MS)
    : null;
  lostSessionTimer?.unref();

  // Ready = accepting (started, not shutting down) with the read model loaded, whatever the store
  // and warehouses do (their state is in the body and the gauges); see health/readiness.ts.
  let accepting = false;
  const readiness = createReadiness({
    store,
    warehouses,
    isAccepting: () => accepting,
    isLoaded: () => readModelLoaded,
    onCheck: (report) => metrics.setDependencies(report),
  });
  const app = createHttpApp({
    services,
    auth: { keys: apiKeys, readonlyKeys: config.API_READONLY_KEYS },
    pages: (shared) =>
      createWebApp({
        ...shared,
        browse,
        revocations: createSessionRevocations({ store, logger }),
      }),
    metrics,
    readiness,
    logger,
    scans: { readModel, freshness },
    limits: {
      postRateLimit: config.POST_RATE_LIMIT,
      postRateLimitWindowSeconds: config.POST_RATE_LIMIT_WINDOW_SECONDS,
      bodyLimitBytes: config.REQUEST_BODY_LIMIT_BYTES,
      requestTimeoutSeconds: config.REQUEST_TIMEOUT_SECONDS,
      scanWaitTimeoutSeconds: config.SCAN_WAIT_TIMEOUT_SECONDS,
      maxAnswerBytes: config.MAX_ANSWER_BYTES,
      authFailureLimit: config.AUTH_FAILURE_LIMIT,
      authFailureWindowSeconds: config.AUTH_FAILURE_WINDOW_SECONDS,
    },
    metricsToken: config.METRICS_TOKEN,
    allowedHosts: config.ALLOWED_HOSTS,
    trustProxy: config.TRUST_PROXY,
  });
  http.attach(app);
  logger.info({ port }, "listening");

  const scheduler: Scheduler | null =
    config.SCAN_SCHEDULE === "off" ? null : startScheduler({ schedule: config.SCAN_SCHEDULE, scanService, store, logger, metrics });
  if (config.SCAN_ON_START) {
    await scanService.trigger("startup").catch((error: unknown) => logger.error({ err: error }, "start-up scan could not start"));
  }
  accepting = true;

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      accepting = false;
      clearInterval(sweepTimer);
      if (lostSessionTimer) clearInterval(lostSessionTimer);
      await scheduler?.stop();
      await scanService.stop();
      server.closeIdleConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
      await Promise.all([...warehouses.values()].map((w) => w.close()));
      logger.info("stopped");
    })());
  return { port, apiKeys, stop };
}

/** `metric-reliability serve` and `node dist/main.js`: the daemon from the environment, until SIGTERM. */
export async function serve(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
  const logger = createLogger(config.LOG_LEVEL);
  let daemon: Daemon;
  try {
    daemon = await startDaemon(config, logger);
  } catch (error) {
    // A mistake in the setup is one line for the operator, not a stack trace.
    if (error instanceof PortInUseError || error instanceof ConfigError) process.stderr.write(`start-up failed: ${error.message}\n`);
    else logger.fatal({ err: error }, `start-up failed: ${(error as Error).message}`);
    process.exit(1);
  }
  const shutdown = (signal: string) => {
    logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      logger.error("shutdown timed out");
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_SECONDS * 1000);
    timer.unref();
    daemon.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.on("unhandledRejection", (error) => logger.error({ err: error }, "unhandled rejection"));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  void serve();
}
