// PostgreSQL down for 60 s under a running daemon, while scans fire. The daemon is a real process
// (scans by a 5-second schedule and by POST) on a PostgreSQL cluster of the test's own, which the
// test stops (immediate shutdown: connections die) with a scan in flight and starts again 60 s
// later. ClickHouse is the server at CLICKHOUSE_URL with the demo shop (it stays up). The
// catalogue is the demo's plus one metric whose query sleeps, so a scan is still running when
// the store goes away.
//   during the outage: every read served from memory (statuses, tests, IR, affected-by, tRPC)
//     answers as before; what needs the store answers 503 `unavailable`; /readyz stays 200 and
//     says the store is down; schedule fires that cannot start are counted;
//   after: the in-flight scan reads `failed` (not `running`), the first scheduled scan succeeds
//     without a restart, and everything stored before the outage is still there.
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_METRICS_DIR } from "../../src/config/config.js";
import { eventually, sample, spawnDaemon, type Answer, type DaemonProcess } from "../helpers/daemon-process.js";
import { postgresBinDir, startPrivatePostgres, type PrivatePostgres } from "../helpers/private-postgres.js";
import { serverConnection } from "../helpers/warehouses.js";
import { EXPECTED_STATUS, METRICS } from "./expected.js";
import { holdDemoShop } from "./server-shop.js";

const KEY = "store-outage-key-0123456789abcdef";
const OUTAGE_MS = 60_000;
const clickhouse = serverConnection();
const admin = process.env.DATABASE_URL;
const SKIPPED = 'metric_reliability_scan_skipped_total{reason="store_unavailable"}';
const SCHEDULE_OK = 'metric_reliability_scans_total{trigger="schedule",outcome="succeeded"}';

/** The reads a replica serves from its read model, by name: path on REST (or tRPC). */
const READS: Record<string, string> = {
  listing: "/v1/reliability/status",
  ...Object.fromEntries(METRICS.map((m) => [`status ${m}`, `/v1/reliability/status/${m}`])),
  tests: "/v1/validation/tests",
  ir: "/v1/compiler/ir",
  "ir gross_revenue": "/v1/compiler/ir/gross_revenue",
  "affected-by": "/v1/reliability/affected-by/shop.orders",
  "trpc status": "/trpc/reliability.status",
};

interface Tick {
  /** seconds since the store went down */
  at: number;
  readyz: Answer;
  reads: Record<string, Answer>;
  post: Answer;
  run: Answer;
  trpcScan: Answer;
  scanById: Answer;
  metrics: string;
}

// CI has everything (and must not skip); elsewhere the suite needs PostgreSQL binaries and both servers' URLs.
describe.skipIf(!(postgresBinDir() && clickhouse && admin) && !process.env.CI)("PostgreSQL down for 60 s while scans fire", () => {
  let store: PrivatePostgres;
  let releaseShop: (() => Promise<void>) | undefined;
  let dir: string;
  let daemon: DaemonProcess;
  const query = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> => {
    const client = new pg.Client({ connectionString: store.url });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  };
  const get = (urlPath: string) => daemon.request("GET", urlPath, { key: KEY });
  const metricsText = async () => (await daemon.request("GET", "/metrics")).body as string;

  const seen = {
    inflight: "",
    before: {} as Record<string, Answer>,
    stored: null as null | { scans: unknown[]; periods: unknown[]; statuses: unknown[]; results: unknown[] },
    skippedBefore: 0,
    ticks: [] as Tick[],
    /** seconds from the restart of PostgreSQL */
    recovery: {} as { readyzUp?: number; noneRunning?: number; scheduledScan?: number; postScan?: number },
    restartedAt: new Date(),
    postAfter: null as Answer | null,
  };

  beforeAll(async () => {
    store = await startPrivatePostgres();
    releaseShop = await holdDemoShop(admin!, clickhouse!);
    dir = await mkdtemp(path.join(os.tmpdir(), "mr-store-outage-"));
    await cp(DEMO_METRICS_DIR, path.join(dir, "metrics"), { recursive: true });
    await writeFile(
      path.join(dir, "metrics", "zz-slow.yaml"),
      `metrics:\n  - name: slow_metric\n    table: system.one\n    filter: "sleep(2) = 0"\n    measures:\n      - { alias: rows, function: Count }\n`,
    );
    daemon = await spawnDaemon({
      DATABASE_URL: store.url,
      CLICKHOUSE_URL: clickhouse!.url,
      ...(clickhouse!.username ? { CLICKHOUSE_USER: clickhouse!.username } : {}),
      ...(clickhouse!.password ? { CLICKHOUSE_PASSWORD: clickhouse!.password } : {}),
      METRICS_DIR: path.join(dir, "metrics"),
      DATA_DIR: dir,
      API_KEYS: KEY,
      SCAN_ON_START: "true",
      SCAN_SCHEDULE: "*/5 * * * * *",
      // three POSTs a second for a minute: above the default write limit (30 a minute per key)
      POST_RATE_LIMIT: "0",
    });
    // Scans by the schedule succeed before the outage.
    await eventually("a scheduled scan to succeed", async () => (sample(await metricsText(), SCHEDULE_OK) ?? 0) >= 1, 90_000);

    // A scan of our own in flight (not one about to finish: wait out a running one first).
    for (;;) {
      const res = await daemon.request("POST", "/v1/reliability/scan", { key: KEY });
      expect(res.status).toBe(202);
      if (!res.body.coalesced) {
        seen.inflight = res.body.scan_id as string;
        break;
      }
      await eventually(
        "the running scan to finish",
        async () => (await get(`/v1/reliability/scans/${res.body.scan_id}`)).body.status !== "running",
      );
    }
    // The view cannot change while our scan runs (one scan at a time): this is what memory serves.
    for (const [name, urlPath] of Object.entries(READS)) seen.before[name] = await get(urlPath);
    seen.stored = {
      scans: await query(`SELECT id, status FROM scans WHERE status <> 'running' ORDER BY id`),
      periods: await query(`SELECT id, metric, status, valid_from FROM status_changes ORDER BY id`),
      statuses: await query(`SELECT metric, status, since FROM metric_statuses ORDER BY metric`),
      results: await query(`SELECT id FROM check_results ORDER BY id`),
    };
    seen.skippedBefore = sample(await metricsText(), SKIPPED) ?? 0;

    await store.stop();
    const downAt = performance.now();
    // One round of every probe per second, each round's requests at once, for OUTAGE_MS.
    while (performance.now() - downAt < OUTAGE_MS) {
      const round = performance.now();
      const reads = await Promise.all(Object.entries(READS).map(async ([name, urlPath]) => [name, await get(urlPath)] as const));
      const [readyz, post, run, trpcScan, scanById, metrics] = await Promise.all([
        daemon.request("GET", "/readyz"),
        daemon.request("POST", "/v1/reliability/scan", { key: KEY }),
        daemon.request("POST", "/v1/semantic-tests/run", { key: KEY }),
        daemon.request("POST", "/trpc/reliability.scan", { key: KEY, body: {} }),
        get(`/v1/reliability/scans/${seen.inflight}`),
        metricsText(),
      ]);
      seen.ticks.push({ at: (round - downAt) / 1000, readyz, reads: Object.fromEntries(reads), post, run, trpcScan, scanById, metrics });
      await sleep(Math.max(0, 1_000 - (performance.now() - round)));
    }

    await store.start();
    const upAt = performance.now();
    seen.restartedAt = new Date();
    const since = () => (performance.now() - upAt) / 1000;
    const scheduledBefore = sample(await metricsText(), SCHEDULE_OK) ?? 0;
    await Promise.all([
      eventually("/readyz to see the store", async () => (await daemon.request("GET", "/readyz")).body.store?.status === "up").then(
        () => (seen.recovery.readyzUp = since()),
      ),
      eventually("no scan started before the restart to read running", async () => {
        const rows = await query(`SELECT id FROM scans WHERE status = 'running' AND started_at < $1`, [seen.restartedAt]);
        return rows.length === 0;
      }).then(() => (seen.recovery.noneRunning = since())),
      eventually("a scheduled scan to succeed", async () => (sample(await metricsText(), SCHEDULE_OK) ?? 0) > scheduledBefore).then(
        () => (seen.recovery.scheduledScan = since()),
      ),
      eventually("a scan by POST to succeed", async () => {
        const res = await daemon.request("POST", "/v1/reliability/scan?wait=true", { key: KEY, timeoutMs: 60_000 });
        return res.status === 200 && res.body.status === "succeeded" ? res : null;
      }).then((res) => {
        seen.postAfter = res;
        seen.recovery.postScan = since();
      }),
    ]);
  }, 240_000);

  afterAll(async () => {
    await daemon?.kill("SIGTERM");
    await store?.dispose();
    await releaseShop?.();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("ran the whole outage with a scan in flight and the demo's statuses in memory", () => {
    // about one round a second (fewer on a loaded machine), the last near the end of the minute
    expect(seen.ticks.length).toBeGreaterThanOrEqual(20);
    expect(seen.ticks.at(-1)!.at).toBeGreaterThanOrEqual(55);
    for (const name of METRICS) expect(seen.before[`status ${name}`]!.body.status, name).toBe(EXPECTED_STATUS[name]);
  });

  it("serves every read from memory throughout, unchanged", () => {
    for (const tick of seen.ticks) {
      for (const [name, answer] of Object.entries(tick.reads)) {
        expect({ name, at: tick.at, status: answer.status }).toEqual({ name, at: tick.at, status: 200 });
        expect(answer.body, name).toEqual(seen.before[name]!.body);
      }
    }
    const slowest = Math.max(...seen.ticks.flatMap((t) => Object.values(t.reads).map((a) => a.ms)));
    console.info(`store-outage: ${seen.ticks.length} rounds of ${Object.keys(READS).length} reads, slowest ${slowest.toFixed(0)} ms`);
  });

  it("answers 503 unavailable to what needs the store (once the in-flight scan failed)", () => {
    const unavailable = { error: { code: "unavailable", message: expect.any(String) } };
    for (const tick of seen.ticks) {
      expect(tick.scanById).toMatchObject({ status: 503, body: unavailable });
      expect(tick.run).toMatchObject({ status: 503, body: unavailable });
      // A trigger while the in-flight scan still runs joins it (202, coalesced); after, 503.
      if (tick.post.status === 202) expect(tick.post.body).toMatchObject({ scan_id: seen.inflight, coalesced: true });
      else expect(tick.post).toMatchObject({ status: 503, body: unavailable });
      expect([200, 503]).toContain(tick.trpcScan.status); // tRPC answers a joined scan with 200
    }
    const first503 = seen.ticks.find((t) => t.post.status === 503)!;
    expect(first503.post.body.error.message).toMatch(/^cannot record the scan: the store is unavailable/);
    // all but the first few seconds (the in-flight scan's remaining sleep)
    const late = seen.ticks.filter((t) => t.at > 15);
    expect(late.length).toBeGreaterThan(10);
    for (const tick of late) expect([tick.post.status, tick.trpcScan.status]).toEqual([503, 503]);
    const slowest = Math.max(...seen.ticks.map((t) => t.post.ms));
    console.info(`store-outage: POST /v1/reliability/scan first 503 at ${first503.at.toFixed(1)} s, slowest ${slowest.toFixed(0)} ms`);
  });

  it("stays ready, showing the store down in /readyz and in metric_reliability_store_up", () => {
    for (const tick of seen.ticks) expect({ at: tick.at, status: tick.readyz.status }).toEqual({ at: tick.at, status: 200 });
    const shown = seen.ticks.find((t) => t.readyz.body.store?.status === "down")!;
    const gauge = seen.ticks.find((t) => sample(t.metrics, "metric_reliability_store_up") === 0)!;
    expect(shown.readyz.body).toMatchObject({ status: "ready", store: { status: "down" }, warehouses: { default: { status: "up" } } });
    // once seen down, it stays down until the store is back
    const from = seen.ticks.indexOf(shown);
    for (const tick of seen.ticks.slice(from)) expect(tick.readyz.body.store.status).toBe("down");
    console.info(
      `store-outage: /readyz shows the store down at ${shown.at.toFixed(1)} s, metric_reliability_store_up 0 at ${gauge.at.toFixed(1)} s`,
    );
  });

  it("counts the schedule fires that could not start", () => {
    const last = sample(seen.ticks.at(-1)!.metrics, SKIPPED)!;
    // A fire every 5 s for 60 s; the first ones may join the in-flight scan instead.
    expect(last - seen.skippedBefore).toBeGreaterThanOrEqual(9);
    expect(sample(seen.ticks.at(-1)!.metrics, 'metric_reliability_scans_total{trigger="schedule",outcome="failed"}')).toBe(0);
    console.info(`store-outage: ${last - seen.skippedBefore} schedule fires skipped for store_unavailable`);
  });

  it("recovers without a restart: no scan left running, the next scans succeed", async () => {
    expect(daemon.exit).toBeNull();
    const inflight = await get(`/v1/reliability/scans/${seen.inflight}`);
    expect(inflight.body).toMatchObject({ status: "failed", error: expect.stringMatching(/^store completeScan failed: /) });
    expect(seen.postAfter!.body).toMatchObject({ status: "succeeded" });
    const r = seen.recovery;
    console.info(
      `store-outage: after the restart of PostgreSQL: /readyz store up ${r.readyzUp!.toFixed(1)} s, no scan running ${r.noneRunning!.toFixed(1)} s, scheduled scan succeeded ${r.scheduledScan!.toFixed(1)} s, POST scan succeeded ${r.postScan!.toFixed(1)} s`,
    );
    expect(daemon.logs.filter((l) => l.level >= 60)).toEqual([]);
  });

  it("lost nothing: what was stored before is still there, and the scans after it are stored", async () => {
    const stored = seen.stored!;
    const scans = await query<{ id: string; status: string }>(`SELECT id, status FROM scans WHERE status <> 'running' ORDER BY id`);
    for (const scan of stored.scans) expect(scans).toContainEqual(scan);
    const periods = await query(`SELECT id, metric, status, valid_from FROM status_changes ORDER BY id`);
    expect(periods).toEqual(stored.periods); // the data did not change: no new period either
    expect(await query(`SELECT metric, status, since FROM metric_statuses ORDER BY metric`)).toEqual(stored.statuses);
    const results = await query<{ id: string }>(`SELECT id FROM check_results ORDER BY id`);
    for (const row of stored.results) expect(results).toContainEqual(row);
    const after = await query<{ id: string; trigger: string }>(
      `SELECT id, trigger FROM scans WHERE status = 'succeeded' AND started_at >= $1 ORDER BY started_at`,
      [seen.restartedAt],
    );
    expect(after.map((s) => s.trigger)).toEqual(expect.arrayContaining(["schedule", "manual"]));
    expect(after.map((s) => s.id)).toContain(seen.postAfter!.body.scan_id);
    // The API serves the new scan's statuses: the same statuses, checked again.
    const listing = await get("/v1/reliability/status");
    expect(listing.body.summary).toEqual(seen.before.listing!.body.summary);
  });
});
