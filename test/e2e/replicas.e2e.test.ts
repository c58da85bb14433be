// Three replicas (real daemon processes) on one PostgreSQL database, behind a round-robin HTTP
// proxy in this test, as the chart's Service spreads requests over its pods. Scans, feedback and
// the pages go through the proxy: whichever replica answers, it reflects them (X-Scan-Id, and
// X-Min-Scan / ?min_scan answered from that scan or 503, never older). The CLI's circuit breaker
// (`scan --server PROXY --fresh`) gives the right exit code run after run while the data flips
// between clean and broken; a replica SIGKILLed in the middle of a scan leaves the scan `aborted`
// on the others within seconds (its store session is gone), whatever its host name or pid.
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scanCommand } from "../../src/cli/commands/scan.js";
import type { CliContext } from "../../src/cli/context.js";
import { DEMO_METRICS_DIR } from "../../src/config/config.js";
import { createLogger } from "../../src/logger.js";
import { execServer } from "../../src/warehouse/clickhouse-server.js";
import { runCli } from "../cli/run-cli.js";
import { eventually, sample, spawnDaemon, type DaemonProcess } from "../helpers/daemon-process.js";
import { serverConnection } from "../helpers/warehouses.js";
import { targets, type TestDatabase } from "../store/databases.js";
import { PLANTED_ANOMALIES, utcDay } from "./expected.js";
import { holdDemoShop } from "./server-shop.js";

const KEY = "replicas-test-key-0123456789abcdef";
const clickhouse = serverConnection();
const postgres = targets.find((t) => t.name === "postgres");
const DB = `mr_replicas_${process.pid}`;
const FLIP = "replica_orders";

interface ProxyAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
  /** which replica (index) answered */
  replica: number;
}

/** Round-robin over the replicas' ports; a replica that refuses the connection is skipped. */
async function startProxy(ports: () => number[]) {
  let next = 0;
  const forward = (index: number, req: http.IncomingMessage, body: Buffer): Promise<http.IncomingMessage> =>
    new Promise((resolve, reject) => {
      const upstream = http.request(
        { host: "127.0.0.1", port: ports()[index], method: req.method, path: req.url, headers: req.headers, agent: false },
        resolve,
      );
      upstream.on("error", reject);
      upstream.end(body);
    });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    const relay = async () => {
      const body = Buffer.concat(chunks);
      const count = ports().length;
      for (let attempt = 0; attempt < count; attempt++) {
        const index = next++ % count;
        try {
          const answer = await forward(index, req, body);
          res.writeHead(answer.statusCode ?? 502, { ...answer.headers, "x-replica": String(index) });
          answer.pipe(res);
          return;
        } catch {
          // that replica is gone: the next one
        }
      }
      res.writeHead(502).end("no replica answered");
    };
    req.on("end", () => void relay());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const request = (method: string, urlPath: string, options: { headers?: Record<string, string>; body?: string } = {}) =>
    new Promise<ProxyAnswer>((resolve, reject) => {
      const headers: Record<string, string> = { authorization: `Bearer ${KEY}`, ...options.headers };
      if (options.body !== undefined) headers["content-length"] = String(Buffer.byteLength(options.body));
      const req = http.request({ host: "127.0.0.1", port, method, path: urlPath, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body, replica: Number(res.headers["x-replica"]) });
        });
      });
      req.on("error", reject);
      req.end(options.body);
    });
  return { url: `http://127.0.0.1:${port}`, request, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The X-Scan-Id of a read straight from one replica. */
async function scanIdOf(replica: DaemonProcess, urlPath: string): Promise<string | null> {
  const res = await fetch(`http://127.0.0.1:${replica.port}${urlPath}`, { headers: { authorization: `Bearer ${KEY}` } });
  await res.arrayBuffer();
  return res.status === 200 ? res.headers.get("x-scan-id") : null;
}

/** Swaps the clean and the broken (empty) table under the metric's name. */
const flip = () =>
  execServer(
    clickhouse!,
    `RENAME TABLE ${DB}.orders TO ${DB}.orders_tmp, ${DB}.orders_other TO ${DB}.orders, ${DB}.orders_tmp TO ${DB}.orders_other`,
  );

describe.skipIf(!(clickhouse && postgres) && !process.env.CI)("three replicas on one PostgreSQL behind a round-robin proxy", () => {
  let db: TestDatabase;
  let dir: string;
  let releaseShop: (() => Promise<void>) | undefined;
  const replicas: DaemonProcess[] = [];
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let clean = true;

  beforeAll(async () => {
    releaseShop = await holdDemoShop(process.env.DATABASE_URL!, clickhouse!);
    db = await postgres!.fresh();
    dir = await mkdtemp(path.join(os.tmpdir(), "mr-replicas-"));
    await execServer(clickhouse!, [
      `DROP DATABASE IF EXISTS ${DB}`,
      `CREATE DATABASE ${DB}`,
      `CREATE TABLE ${DB}.orders (id UInt32, amount Float64, created_at DateTime) ENGINE = MergeTree() ORDER BY id`,
      `INSERT INTO ${DB}.orders SELECT number, number * 1.5, now() - number FROM system.numbers LIMIT 500`,
      // broken: no rows at all (table_not_empty, HIGH: unreliable)
      `CREATE TABLE ${DB}.orders_other (id UInt32, amount Float64, created_at DateTime) ENGINE = MergeTree() ORDER BY id`,
    ]);
    // deliveries_shipped from the demo (its planted volume drop, for feedback) and a metric on our table.
    await copyFile(path.join(DEMO_METRICS_DIR, "deliveries.yaml"), path.join(dir, "deliveries.yaml"));
    await writeFile(
      path.join(dir, "replica.yaml"),
      [
        "metrics:",
        `  - name: ${FLIP}`,
        `    table: ${DB}.orders`,
        "    measures:",
        "      - { alias: revenue, function: Sum, column: amount }",
        "",
      ].join("\n"),
    );
    const env = {
      DATABASE_URL: db.options.databaseUrl!,
      CLICKHOUSE_URL: clickhouse!.url,
      ...(clickhouse!.username ? { CLICKHOUSE_USER: clickhouse!.username } : {}),
      ...(clickhouse!.password ? { CLICKHOUSE_PASSWORD: clickhouse!.password } : {}),
      METRICS_DIR: dir,
      DATA_DIR: dir,
      API_KEYS: KEY,
      SCAN_SCHEDULE: "off",
      SCAN_ON_START: "false",
    };
    replicas.push(...(await Promise.all([0, 1, 2].map(() => spawnDaemon(env)))));
    await eventually("every replica's listener", async () => {
      for (const r of replicas) {
        const metrics = await r.request("GET", "/metrics");
        if (sample(String(metrics.body), "metric_reliability_store_listener_connected") !== 1) return false;
      }
      return true;
    });
    proxy = await startProxy(() => replicas.filter((r) => !r.exit).map((r) => r.port));
  }, 180_000);

  afterAll(async () => {
    await proxy?.close();
    await Promise.all(replicas.map((r) => r.kill("SIGTERM")));
    await db?.drop();
    await releaseShop?.();
    if (clickhouse) await execServer(clickhouse, `DROP DATABASE IF EXISTS ${DB}`);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const scan = async () => {
    const answer = await proxy.request("POST", "/v1/reliability/scan?wait=true");
    expect(answer).toMatchObject({ status: 200, body: { status: "succeeded" } });
    return { id: answer.body.scan_id as string, at: performance.now(), replica: answer.replica };
  };

  it("a scan through the proxy: every replica serves it within a second, and at once when asked for it", async () => {
    const s = await scan();
    // Asked for at least that scan: the very next reads, on every replica, are that scan's.
    const reads = [
      `/v1/reliability/status`,
      `/v1/reliability/status/${FLIP}`,
      `/v1/reliability/anomalies/${PLANTED_ANOMALIES.volume.metric}`,
      `/v1/reliability/status?min_scan=${s.id}`,
    ];
    const served = new Set<number>();
    for (const url of reads) {
      for (let i = 0; i < 3; i++) {
        const answer = await proxy.request("GET", url, { headers: { "x-min-scan": s.id } });
        expect(answer.status, `${url}: ${answer.text}`).toBe(200);
        expect(answer.headers["x-scan-id"]).toBe(s.id);
        served.add(answer.replica);
      }
    }
    expect(served).toEqual(new Set([0, 1, 2]));
    const metric = await proxy.request("GET", `/v1/reliability/status/${FLIP}`, { headers: { "x-min-scan": s.id } });
    expect(metric.body).toMatchObject({ metric_name: FLIP, status: "healthy", scan_id: s.id });

    // Without asking: the other replicas learn of it through LISTEN/NOTIFY within about a second.
    const delay = await eventually(
      "every replica to serve the scan",
      async () => {
        const heads = await Promise.all(replicas.map((r) => scanIdOf(r, `/v1/reliability/status/${FLIP}`)));
        return heads.every((h) => h === s.id) ? performance.now() - s.at : null;
      },
      5_000,
    );
    console.info(`replicas: the scan was served by every replica ${Math.round(delay)} ms after its answer`);
    expect(delay).toBeLessThan(5_000);
  });

  it("a scan the replica has not applied is answered 503 with Retry-After, never from an older view; unknown scans 404", async () => {
    const [a] = replicas;
    // A scan row another replica is still running (written straight to the store).
    await db.query(
      `INSERT INTO scans (id, trigger, status, started_at, heartbeat_at) VALUES ('running-elsewhere', 'manual', 'running', now(), now())`,
    );
    const res = await fetch(`http://127.0.0.1:${a!.port}/v1/reliability/status`, {
      headers: { authorization: `Bearer ${KEY}`, "x-min-scan": "running-elsewhere" },
    });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    await db.query(`DELETE FROM scans WHERE id = 'running-elsewhere'`);
    const unknown = await proxy.request("GET", "/v1/reliability/status?min_scan=no-such-scan");
    expect(unknown.status).toBe(404);
    const anonymous = await proxy.request("GET", "/v1/reliability/status?min_scan=no-such-scan", { headers: { authorization: "" } });
    expect(anonymous.status).toBe(401);
  });

  it("feedback through the proxy shows on every replica's anomalies within a second; the next scan's statuses on every page", async () => {
    const { metric, rule, measure, daysAgo } = PLANTED_ANOMALIES.volume;
    const start = `${utcDay(daysAgo)}T00:00:00.000Z`;
    const posted = await proxy.request("POST", `/v1/reliability/anomalies/${metric}/feedback`, {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ rule, measure, start, expected: true }),
    });
    expect(posted.status, posted.text).toBe(200);
    const at = performance.now();
    // The replica that took it shows it at once; the others once LISTEN/NOTIFY told them, which
    // is not ordered with a request that reaches them meanwhile (docs/replicas.md: within a second).
    const marked = async (replica: DaemonProcess) => {
      const answer = await replica.request("GET", `/v1/reliability/anomalies/${metric}`, { key: KEY });
      const bucket = (
        answer.body as { series: { buckets: { start: string; feedback: boolean; anomalous: boolean }[] }[] }
      ).series[0]!.buckets.find((b) => b.start === start);
      return answer.status === 200 && bucket?.feedback === true && !bucket.anomalous;
    };
    expect(await marked(replicas[posted.replica]!)).toBe(true);
    const delay = await eventually(
      "every replica to show the feedback",
      async () => ((await Promise.all(replicas.map(marked))).every(Boolean) ? performance.now() - at : null),
      5_000,
    );
    console.info(`replicas: the feedback showed on every replica ${Math.round(delay)} ms after its answer`);
    expect(delay).toBeLessThan(5_000);
    const s = await scan();
    // The overview page, signed in through the proxy (the sealed cookie is good on every replica).
    const login = await proxy.request("POST", "/login", {
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: "" },
      body: `key=${KEY}&next=/`,
    });
    expect(login.status).toBe(303);
    const cookie = String(login.headers["set-cookie"]![0]).split(";")[0]!;
    for (let i = 0; i < 3; i++) {
      const page = await proxy.request("GET", `/?scan=${s.id}`, { headers: { cookie, authorization: "" } });
      expect(page.status, page.text.slice(0, 300)).toBe(200);
      expect(page.headers["x-scan-id"]).toBe(s.id);
      const status = await proxy.request("GET", `/v1/reliability/status/${metric}?min_scan=${s.id}`);
      expect(status.body).toMatchObject({ status: "healthy", scan_id: s.id });
    }
  });

  it("`scan --server PROXY --fresh` gives the right exit code 20 times in a row while the data flips", async () => {
    process.env.METRIC_RELIABILITY_API_KEY = KEY;
    const sink = () => Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    const context: CliContext = { config: {} as CliContext["config"], logger: createLogger("silent"), stdout: sink(), stderr: sink() };
    const codes: string[] = [];
    for (let run = 0; run < 20; run++) {
      const wanted = clean ? 0 : 1;
      const code = await scanCommand(context, { metric: [FLIP], server: proxy.url, fresh: true, timeout: "60" });
      codes.push(`${run}:${wanted}/${code}`);
      expect(code, codes.join(" ")).toBe(wanted);
      await flip();
      clean = !clean;
    }
    // And the real CLI, once, as a pipeline runs it.
    const real = await runCli(["scan", "--server", proxy.url, "--fresh", "--metric", FLIP], { METRIC_RELIABILITY_API_KEY: KEY });
    expect(real.code, real.stderr).toBe(clean ? 0 : 1);
  }, 180_000);

  it("a replica SIGKILLed in the middle of a scan: the scan reads `aborted` on the others within seconds", async () => {
    const victim = replicas[2]!;
    const locker = new pg.Client({ connectionString: db.options.databaseUrl! });
    await locker.connect();
    try {
      await flip(); // something to write
      clean = !clean;
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE metric_statuses IN EXCLUSIVE MODE");
      const started = await victim.request("POST", "/v1/reliability/scan", { key: KEY });
      expect(started).toMatchObject({ status: 202, body: { status: "running" } });
      const id = started.body.scan_id as string;
      await eventually(
        "the scan's transaction to wait on metric_statuses",
        async () =>
          (
            await db.query(
              `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO "metric_statuses"%'`,
            )
          ).length > 0,
      );
      const [row] = await db.query<{ owner_session_key: number | null }>(`SELECT owner_session_key FROM scans WHERE id = $1`, [id]);
      expect(row!.owner_session_key).not.toBeNull();
      await victim.kill("SIGKILL");
      const killed = performance.now();
      await locker.query("ROLLBACK");
      const seconds = await eventually(
        "the others to read the scan aborted",
        async () => {
          const answers = await Promise.all(replicas.slice(0, 2).map((r) => r.request("GET", `/v1/reliability/scans/${id}`, { key: KEY })));
          return answers.every((a) => a.body?.status === "aborted") ? (performance.now() - killed) / 1000 : null;
        },
        15_000,
      );
      console.info(`replicas: the killed replica's scan read aborted on the others ${seconds.toFixed(1)} s after SIGKILL`);
      expect(seconds).toBeLessThan(15);
      // By the session rule, not by host and pid (that one runs with the 30 s sweep only).
      await eventually(
        "the abort's log line",
        async () =>
          // (the 2 s lost-session check, or the 30 s sweep if it came first: both count lostSession)
          replicas.slice(0, 2).some((r) => r.logs.some((l) => l.level === 40 && l.lostSession >= 1)),
        10_000,
      );
      // The two left still scan through the proxy, and say so.
      const s = await scan();
      expect((await proxy.request("GET", `/v1/reliability/status/${FLIP}`, { headers: { "x-min-scan": s.id } })).body).toMatchObject({
        status: clean ? "healthy" : "unreliable",
      });
    } finally {
      await locker.end().catch(() => undefined);
    }
  }, 90_000);
});
