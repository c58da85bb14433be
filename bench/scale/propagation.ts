// Two replicas on one PostgreSQL store: how long from a scan's commit on replica A until replica B
// serves it (X-Scan-Id of B's answers). The commit is when the scan's NOTIFY reaches a listener of
// the benchmark's own (PostgreSQL delivers it at commit); B is polled every few milliseconds
// meanwhile, as traffic would. Beside it, the baseline measured in the same run: a whole reload
// of the read model at this size (what B would do without the delta of store/read-delta.ts).
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { createReadModel } from "../../src/read-model/read-model.js";
import { loadCatalogSnapshot } from "../../src/services/load-catalog.js";
import { CHANGE_CHANNEL } from "../../src/store/change-feed.js";
import { createStore } from "../../src/store/prisma-store.js";
import type { DaemonProcess } from "./daemon-process.js";

export interface PropagationFigures {
  scans: number;
  /** ms from each scan's commit to B's first answer from it */
  delaysMs: number[];
  /** ms of a whole read-model load at this size, in the benchmark's process */
  reloadMs: number[];
  /** ms of reading the last scan's rows only (store.readScanDelta), in the benchmark's process */
  deltaReadMs: number[];
  /** B's own account (its "read model refreshed" log lines): how, and ms from its refresh's start to the new view */
  refreshes: { how: string; ms: number }[];
  /** B's metric_reliability_store_listener_connected before the scans */
  listenerConnected: boolean;
}

const POLL_MS = 5;

export const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
};

/** The scan id B answers from (X-Scan-Id), or null. */
async function servedScan(b: DaemonProcess, urlPath: string): Promise<string | null> {
  const res = await fetch(`${b.base}${urlPath}`, { headers: { authorization: `Bearer ${b.key}` } }).catch(() => null);
  if (!res) return null;
  await res.arrayBuffer();
  return res.headers.get("x-scan-id");
}

export async function measurePropagation(
  a: DaemonProcess,
  b: DaemonProcess,
  options: { databaseUrl: string; metricsDir: string; metric: string; scans: number; progress: (line: string) => void },
): Promise<PropagationFigures> {
  const commits = new Map<string, number>();
  const listener = new pg.Client({ connectionString: options.databaseUrl });
  await listener.connect();
  listener.on("notification", (message) => {
    const change = JSON.parse(message.payload ?? "{}") as { kind?: string; id?: string };
    if (change.kind === "scan" && change.id) commits.set(change.id, performance.now());
  });
  await listener.query(`LISTEN ${CHANGE_CHANNEL}`);
  const metricsText = (await b.get("/metrics")).text;
  const listenerConnected = /^metric_reliability_store_listener_connected 1$/m.test(metricsText);
  const urlPath = `/v1/reliability/status/${options.metric}`;
  const delaysMs: number[] = [];
  try {
    for (let i = 1; i <= options.scans; i++) {
      let started = JSON.parse((await a.post("/v1/reliability/scan")).text) as { scan_id: string; coalesced: boolean };
      // A scan still finishing (pruning) is joined, not started: ask again.
      for (let j = 0; j < 100 && started.coalesced; j++) {
        await sleep(100);
        started = JSON.parse((await a.post("/v1/reliability/scan")).text) as { scan_id: string; coalesced: boolean };
      }
      const id = started.scan_id;
      // B, polled as traffic would, until it answers from the scan.
      let servedAt: number | null = null;
      const deadline = performance.now() + 120_000;
      while (performance.now() < deadline) {
        if ((await servedScan(b, urlPath)) === id) {
          servedAt = performance.now();
          break;
        }
        await sleep(POLL_MS);
      }
      const committedAt = commits.get(id);
      if (servedAt === null || committedAt === undefined) throw new Error(`scan ${id}: B never served it (or its commit was not heard)`);
      delaysMs.push(Math.max(0, servedAt - committedAt));
      options.progress(`propagation ${i}/${options.scans}: ${Math.round(servedAt - committedAt)} ms`);
      // A has finished its scan too before the next one starts (a trigger while one runs joins it).
      for (let j = 0; j < 600 && (await servedScan(a, urlPath)) !== id; j++) await sleep(100);
    }
  } finally {
    await listener.end();
  }

  // The baseline: a whole load of the read model from the same store, here, three times.
  const store = await createStore({ databaseUrl: options.databaseUrl, dataDir: "/tmp" });
  const reloadMs: number[] = [];
  const deltaReadMs: number[] = [];
  try {
    const snapshot = await loadCatalogSnapshot(options.metricsDir, new Date(), { metricflowDatabase: "default" });
    for (let i = 0; i < 3; i++) {
      const model = createReadModel({ store, getSnapshot: () => snapshot, historyLimit: 50 });
      const started = performance.now();
      await model.refresh({ force: true });
      reloadMs.push(performance.now() - started);
    }
    const [, before] = (await store.recentScans(10)).filter((s) => s.status === "succeeded");
    for (let i = 0; before && i < 3; i++) {
      const started = performance.now();
      await store.readScanDelta(before, { historyLimit: 50 });
      deltaReadMs.push(performance.now() - started);
    }
  } finally {
    await store.close();
  }
  const refreshes = b.logs
    .filter((l) => l.msg === "read model refreshed")
    .map((l) => ({ how: String(l.how), ms: Number(l.ms) }))
    .slice(-options.scans);
  return { scans: options.scans, delaysMs, reloadMs, deltaReadMs, refreshes, listenerConnected };
}

export function printPropagation(figures: PropagationFigures, context: { metrics: number; tests: number }): void {
  const ms = (v: number) => `${Math.round(v)} ms`;
  const p99 = percentile(figures.delaysMs, 99);
  const lines = [
    "",
    `## Propagation between two replicas (${context.metrics} metrics, ${context.tests} tests, PostgreSQL)`,
    "",
    "| figure | value | baseline (same run) | target | |",
    "|---|---|---|---|---|",
    `| scan commit on A -> B serves it: p50 | ${ms(percentile(figures.delaysMs, 50))} | whole read-model reload: ${figures.reloadMs.map(ms).join(", ")} | | |`,
    `| scan commit on A -> B serves it: p99 (max of ${figures.scans}) | ${ms(p99)} / ${ms(Math.max(...figures.delaysMs))} | periodic sweep alone: up to 30,000 ms | < 1000 ms | ${p99 < 1000 ? "met" : "NOT met"} |`,
    `| B's refresh per scan (its log, ${figures.refreshes.filter((r) => r.how === "delta").length} of ${figures.refreshes.length} by delta): p50 / max | ${ms(
      percentile(
        figures.refreshes.map((r) => r.ms),
        50,
      ),
    )} / ${ms(Math.max(...figures.refreshes.map((r) => r.ms)))} | | | |`,
    `| reading one scan's rows (readScanDelta), in the benchmark's process | ${figures.deltaReadMs.map(ms).join(", ")} | whole reload above | | |`,
    `| B's store listener connected | ${figures.listenerConnected ? "yes" : "no"} | | yes | |`,
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}
