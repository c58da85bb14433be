// npm run bench:scale [-- --metrics N --tables T --rows R --seconds S --connections C --drop-every K --segments SHARE --pages-only]
// A generated catalogue of N metrics over T tables on the ClickHouse server at CLICKHOUSE_URL
// (--segments 0.1, the default: a tenth of them with per-segment anomaly series by a 50-value label),
// the production build of the daemon on PostgreSQL (DATABASE_URL) or the embedded store, three
// scans through a proxy that resets connections, then autocannon against the daemon and a bare
// Express server in the same run (API paths, and the pages `/` and `/metric/:name`). Prints every figure with its target, met or not.
// Scans 2 and 3 run on unchanged data (incremental: they should read next to nothing), then rows
// are appended to 10 of the tables and scan 4 must read those and agree with a full scan run by
// the benchmark itself. Bytes read come from ClickHouse's system.query_log (warehouse-reads.ts).
// --pages-only: one scan, then only the pages' load test (a few minutes: for working on the pages).
// --replicas 2 (PostgreSQL only): a second replica on the same store; after the scans, the
// propagation delay from a scan's commit on the first to the second serving it (propagation.ts).
// --propagation-only: the first scan, then only that (a few minutes at 10,000 metrics).
// A benchmark, not a test: the figures depend on the machine; the ratios are what compare.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { executeScan } from "../../src/scan/execute-scan.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import { findPackageRoot } from "../../src/store/package-root.js";
import { createServerWarehouse, execServer } from "../../src/warehouse/clickhouse-server.js";
import { startFlakyProxy } from "../../test/helpers/flaky-proxy.js";
import { writeCatalog } from "../bench-catalog.js";
import { wideStatements } from "../wide-mode.js";
import { startDaemonProcess, startLagSampler } from "./daemon-process.js";
import { loadTest, pageSession } from "./load-test.js";
import { measurePropagation, printPropagation } from "./propagation.js";
import { printPagesReport, printReport, type ScanFigures } from "./report.js";
import { scaleMetrics } from "./scale-catalog.js";
import { embeddedStore, postgresStore, type StoreHandle } from "./store-size.js";
import { appendedTables, appendStatements, scanReads } from "./warehouse-reads.js";

const progress = (line: string) => process.stderr.write(`[bench:scale] ${line}\n`);

const { values: args } = parseArgs({
  options: {
    metrics: { type: "string", default: process.env.BENCH_SCALE_METRICS ?? "10000" },
    tables: { type: "string", default: process.env.BENCH_SCALE_TABLES ?? "100" },
    rows: { type: "string", default: process.env.BENCH_SCALE_ROWS ?? "20000" },
    seconds: { type: "string", default: process.env.BENCH_SCALE_SECONDS ?? "20" },
    connections: { type: "string", default: process.env.BENCH_SCALE_CONNECTIONS ?? "100" },
    "drop-every": { type: "string", default: process.env.BENCH_SCALE_DROP_EVERY ?? "25" },
    idle: { type: "string", default: process.env.BENCH_SCALE_IDLE_SECONDS ?? "35" },
    appended: { type: "string", default: process.env.BENCH_SCALE_APPENDED ?? "10" },
    // start the daemon with the README's `npm start` instead of `node dist/main.js` + the image's settings
    start: { type: "boolean", default: false },
    "pages-only": { type: "boolean", default: false },
    replicas: { type: "string", default: process.env.BENCH_SCALE_REPLICAS ?? "1" },
    "propagation-scans": { type: "string", default: process.env.BENCH_SCALE_PROPAGATION_SCANS ?? "20" },
    "propagation-only": { type: "boolean", default: false },
    // share of metrics whose anomaly series are also read per segment (issue 20: 10 % at 50 values)
    segments: { type: "string", default: process.env.BENCH_SCALE_SEGMENTS ?? "0.1" },
  },
});
const n = (name: keyof typeof args) => Number(args[name]);

async function main(): Promise<void> {
  const clickhouse = process.env.CLICKHOUSE_URL;
  if (!clickhouse) throw new Error("set CLICKHOUSE_URL to a ClickHouse server (bash .ci/start-clickhouse.sh starts one on 127.0.0.1:8123)");
  const root = findPackageRoot();
  const tag = `${process.pid}_${Date.now().toString(36)}`;
  const db = `mr_scale_${tag}`;
  const workDir = await mkdtemp(path.join(os.tmpdir(), "mr-scale-"));
  const metricsDir = path.join(workDir, "metrics");
  const dataDir = path.join(workDir, "data");
  const conn = {
    url: clickhouse,
    username: process.env.CLICKHOUSE_USER || undefined,
    password: process.env.CLICKHOUSE_PASSWORD || undefined,
  };
  let store: StoreHandle | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    progress(`creating ${db}: ${n("tables")} tables x ${n("rows")} rows`);
    await execServer(conn, wideStatements(db, n("tables"), n("rows")));
    cleanups.push(() => execServer(conn, `DROP DATABASE IF EXISTS ${db}`));
    await writeCatalog(metricsDir, scaleMetrics(db, n("tables"), n("metrics"), n("segments")));
    progress(`catalogue: ${n("metrics")} metrics, ${Math.round(n("segments") * 100)} % of them with segments by label (50 values)`);
    store = process.env.DATABASE_URL ? await postgresStore(process.env.DATABASE_URL, `mr_scale_store_${tag}`) : embeddedStore(dataDir);
    cleanups.push(() => store!.drop());
    const dropEvery = n("drop-every");
    const proxy = dropEvery > 0 ? await startFlakyProxy(clickhouse, { dropEvery }) : null;
    if (proxy) cleanups.push(() => proxy.close());

    const command = args.start ? "npm-start" : "node";
    progress(
      `starting the daemon (${args.start ? "npm start" : "node dist/main.js"}) on ${store.label}${proxy ? `, ClickHouse through a proxy resetting every ${dropEvery}th chunk` : ""}`,
    );
    const daemon = await startDaemonProcess(
      root,
      {
        METRICS_DIR: metricsDir,
        DATA_DIR: dataDir,
        CLICKHOUSE_URL: proxy?.url ?? clickhouse,
        ...(conn.username ? { CLICKHOUSE_USER: conn.username } : {}),
        ...(conn.password ? { CLICKHOUSE_PASSWORD: conn.password } : {}),
        ...(store.url ? { DATABASE_URL: store.url } : {}),
        // ClickHouse's accounting of what each scan read (system.query_log)
        CLICKHOUSE_LOG_QUERIES: "true",
      },
      command,
    );
    cleanups.unshift(() => daemon.stop());
    const compiled = daemon.logs.find((l) => l.msg === "catalogue compiled") as { ms: number; metrics: number; tests: number } | undefined;
    const replicas = n("replicas");
    if (replicas > 1 && !store.url) throw new Error("--replicas needs DATABASE_URL: replicas share a PostgreSQL store");
    // The second replica: same catalogue, same store, its own data directory.
    const second =
      replicas > 1
        ? await startDaemonProcess(
            root,
            {
              METRICS_DIR: metricsDir,
              DATA_DIR: path.join(workDir, "data-b"),
              CLICKHOUSE_URL: clickhouse,
              ...(conn.username ? { CLICKHOUSE_USER: conn.username } : {}),
              ...(conn.password ? { CLICKHOUSE_PASSWORD: conn.password } : {}),
              DATABASE_URL: store.url!,
            },
            command,
          )
        : null;
    if (second) cleanups.unshift(() => second.stop());
    const propagation = async (metric: string) => {
      if (!second) return;
      progress(`propagation: ${n("propagation-scans")} scans on the first replica, the second polled`);
      const figures = await measurePropagation(daemon, second, {
        databaseUrl: store!.url!,
        metricsDir,
        metric,
        scans: n("propagation-scans"),
        progress,
      });
      printPropagation(figures, { metrics: n("metrics"), tests: compiled?.tests ?? NaN });
    };
    const lag = startLagSampler(daemon);
    cleanups.unshift(() => lag.stop());
    progress(`ready in ${Math.round(daemon.startupMs)} ms; idle ${n("idle")} s`);
    await sleep(n("idle") * 1000);

    const scans: ScanFigures[] = [];
    let previous: Map<string, string> | null = null;
    let size = await store.bytes();
    lag.setPhase("scanning");
    const appended = appendedTables(n("tables"), n("appended"));
    let summary4: Record<string, number> | null = null;
    for (let i = 1; i <= (args["pages-only"] || args["propagation-only"] ? 1 : 4); i++) {
      if (i === 4) {
        progress(`appending 100 rows to ${appended.length} tables: ${appended.join(", ")}`);
        await execServer(conn, appendStatements(db, appended, n("rows"), 100));
      }
      const started = performance.now();
      const res = await daemon.post("/v1/reliability/scan?wait=true");
      const wallMs = performance.now() - started;
      const scan = JSON.parse(res.text) as { scan_id: string; status: string; error: string | null; summary: Record<string, number> };
      if (scan.status !== "succeeded") throw new Error(`scan ${i} ${scan.status}: ${scan.error}`);
      if (i === 4) summary4 = scan.summary;
      const logged = (await daemon.waitForLog((l) => l.msg === "scan succeeded" && l.scan_id === scan.scan_id)) as
        | { seconds: Record<string, number>; incremental?: Record<string, number>; series_queries?: number; series_reused?: number }
        | undefined;
      const statuses = new Map(
        (
          JSON.parse((await daemon.get("/v1/reliability/status")).text) as { metrics: { metric_name: string; status: string }[] }
        ).metrics.map((m) => [m.metric_name, m.status]),
      );
      const changed = previous ? [...statuses].filter(([name, status]) => previous!.get(name) !== status).length : null;
      const bytes = await store.bytes();
      const reads = await scanReads(conn, scan.scan_id, db);
      scans.push({
        n: i,
        kind: i === 1 ? "first" : i === 4 ? "appended" : "unchanged",
        wallMs,
        seconds: logged?.seconds ?? {},
        seriesQueries: logged?.series_queries,
        seriesReused: logged?.series_reused,
        growthBytes: bytes - size,
        changed,
        reads,
        ...(logged?.incremental ? { incremental: logged.incremental } : {}),
      });
      progress(
        `scan ${i}: ${Math.round(wallMs)} ms, ${JSON.stringify(logged?.seconds)}, ${JSON.stringify(logged?.incremental)}, read ${reads.bytes} bytes in ${reads.queries} queries, store +${bytes - size} bytes, status changes ${changed ?? "-"}`,
      );
      size = bytes;
      previous = statuses;
    }
    const metric = [...(previous?.keys() ?? [])][0]!;
    progress(
      `largest V8 heap in use seen while scanning: ${lag.heapMb("scanning").toFixed(1)} MB (idle before: ${lag.heapMb("idle").toFixed(1)} MB)`,
    );
    if (args["propagation-only"]) {
      await lag.stop();
      await propagation(metric);
      return;
    }
    // The pages: the overview's first page (worst first, 50 rows) and one metric's page.
    const loadOptions = async () => ({
      root,
      workDir,
      seconds: n("seconds"),
      connections: n("connections"),
      progress,
      pages: ["/", `/metric/${metric}`],
      cookie: await pageSession(daemon),
      // The reads that must hold at 50 and 100 connections (issue 19).
      connectionsFor: Object.fromEntries(
        [`/metric/${metric}`, `/v1/reliability/status/${metric}`, `/v1/reliability/anomalies/${metric}`].map((p) => [p, [50, 100]]),
      ),
    });
    if (args["pages-only"]) {
      const pageLoad = await loadTest(daemon, [], await loadOptions());
      await lag.stop();
      printPagesReport({ metrics: n("metrics"), tables: n("tables"), store: store.label, tests: compiled?.tests ?? NaN, load: pageLoad });
      return;
    }
    // The same catalogue read in full by the benchmark itself, straight from ClickHouse.
    progress("a full scan of the same catalogue, for comparison");
    const snapshot = await loadCatalogSnapshot(metricsDir, new Date(), { metricflowDatabase: "default" });
    const direct = createServerWarehouse({ ...conn, name: "default", timeoutSeconds: 600 });
    const full = await executeScan(snapshot, new Map([["default", direct]]), {
      scanId: `bench-full-${tag}`,
      concurrency: 4,
      maxQuerySize: 262_144,
      signal: new AbortController().signal,
    }).finally(() => direct.close());
    const fullStatuses = new Map(full.statuses.map((s) => [s.metric_name, s.status]));
    const comparison = {
      appended,
      differing: [...fullStatuses].filter(([name, status]) => previous?.get(name) !== status).length,
      summaryEqual: JSON.stringify(summary4) === JSON.stringify(full.summary),
      fullSummary: full.summary,
      incrementalSummary: summary4,
    };
    const scanRss = await daemon.peakRss();
    lag.setPhase("idle-after");
    await sleep(n("idle") * 1000);
    lag.setPhase("load");

    const load = await loadTest(
      daemon,
      [
        "/v1/reliability/status",
        `/v1/reliability/status/${metric}`,
        `/v1/reliability/anomalies/${metric}`,
        "/v1/validation/tests?limit=100",
        "/metrics",
      ],
      await loadOptions(),
    );
    const peakRss = await daemon.peakRss();
    await lag.stop();
    await propagation(metric);
    printReport({
      metrics: n("metrics"),
      tables: n("tables"),
      rows: n("rows"),
      store: store.label,
      command: args.start ? "npm start" : "node dist/main.js (the image's NODE_OPTIONS and MALLOC_ARENA_MAX)",
      tests: compiled?.tests ?? NaN,
      startupMs: daemon.startupMs,
      compileMs: compiled?.ms ?? NaN,
      scans,
      lagMs: { idle: Math.max(lag.maxMs("idle"), lag.maxMs("idle-after")), scanning: lag.maxMs("scanning"), load: lag.maxMs("load") },
      scanRss,
      peakRss,
      // The embedded store's PostgreSQL (its worker thread) is part of the daemon's process.
      rssTargetMb: store.url ? 400 : 600,
      dropped: proxy?.dropped() ?? 0,
      load,
      comparison,
    });
  } finally {
    for (const cleanup of cleanups) await cleanup().catch((error: unknown) => progress(`cleanup: ${(error as Error).message}`));
    await rm(workDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:scale failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
