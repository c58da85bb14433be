// The alert rules evaluated by a real Prometheus (Debian's server) against the daemon's real
// series: the daemon scans the demo shop seeded into a ClickHouse of the test's own; Prometheus
// scrapes it every second and evaluates the project's rules with time compressed 120x
// (scaled-rules.ts). Asserted through Prometheus' HTTP API: the target is up, every rule loads
// and evaluates without error, MetricUnreliable fires for exactly the metrics the API calls
// unreliable (and not for a healthy one), and ReliabilityScansFailing fires once the
// warehouse is stopped.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { startDaemon, type Daemon } from "../../src/main.js";
import { execServer } from "../../src/warehouse/clickhouse-server.js";
import { demoDatasetStatements } from "../../src/warehouse/demo-dataset.js";
import { startPrivateClickHouse, type PrivateClickHouse } from "../helpers/private-clickhouse.js";
import { scaledRules } from "./scaled-rules.js";
import { freePort } from "../helpers/free-port.js";

const KEY = "prometheus-test-key-0123456789";
const TIME_FACTOR = 120; // for: 5m -> 3s, [30m] -> 15s
const hasPrometheus = spawnSync("prometheus", ["--version"]).status === 0;

interface Alert {
  labels: Record<string, string>;
  state: "pending" | "firing";
}

// CI installs Debian's prometheus and must not skip; elsewhere the suite needs it installed.
describe.skipIf(!hasPrometheus && !process.env.CI)("alert rules on a real Prometheus scraping the daemon", () => {
  let ch: PrivateClickHouse;
  let daemon: Daemon;
  let prometheus: ChildProcess;
  let promUrl: string;
  let dir: string;
  const promLog: string[] = [];

  const api = async <T>(pathAndQuery: string): Promise<T> => {
    const res = await fetch(`${promUrl}/api/v1/${pathAndQuery}`);
    const body = (await res.json()) as { status: string; data: T };
    if (body.status !== "success") throw new Error(`${pathAndQuery}: ${JSON.stringify(body)}`);
    return body.data;
  };
  const alerts = async () => (await api<{ alerts: Alert[] }>("alerts")).alerts;
  const firing = async (name: string) => (await alerts()).filter((a) => a.labels.alertname === name && a.state === "firing");
  const until = async <T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe().catch(() => null);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; Prometheus log:\n${promLog.join("").slice(-3000)}`);
      await sleep(500);
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "mr-prometheus-"));
    ch = await startPrivateClickHouse();
    await execServer({ url: ch.url }, demoDatasetStatements());
    daemon = await startDaemon(
      loadConfig({
        PORT: "0",
        HOST: "127.0.0.1",
        CLICKHOUSE_URL: ch.url,
        API_KEYS: KEY,
        SCAN_SCHEDULE: "*/3 * * * * *", // every 3 s: scans keep failing while the warehouse is down
        SCAN_ON_START: "true",
        DATA_DIR: path.join(dir, "data"),
        QUERY_TIMEOUT_SECONDS: "5",
      }),
      pino({ level: "silent" }),
    );

    await writeFile(path.join(dir, "rules.yml"), scaledRules(TIME_FACTOR));
    await writeFile(
      path.join(dir, "prometheus.yml"),
      [
        "global: { scrape_interval: 1s, evaluation_interval: 1s }",
        "rule_files: [rules.yml]",
        "scrape_configs:",
        "  - job_name: metric-reliability",
        `    static_configs: [{ targets: ["127.0.0.1:${daemon.port}"] }]`,
        "",
      ].join("\n"),
    );
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      "prometheus",
      [
        `--config.file=${path.join(dir, "prometheus.yml")}`,
        `--storage.tsdb.path=${path.join(dir, "tsdb")}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    prometheus.stdout!.on("data", (c: Buffer) => promLog.push(c.toString()));
    prometheus.stderr!.on("data", (c: Buffer) => promLog.push(c.toString()));
    await until("Prometheus to be ready", async () => (await fetch(`${promUrl}/-/ready`)).ok);
  });

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus.once("exit", resolve));
      prometheus.kill("SIGTERM");
      await exited;
    }
    await daemon?.stop();
    await ch?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("scrapes the daemon: the target is up", async () => {
    const target = await until("the target to be up", async () => {
      const { activeTargets } = await api<{ activeTargets: { health: string; labels: Record<string, string>; lastError: string }[] }>(
        "targets",
      );
      return activeTargets.find((t) => t.labels.job === "metric-reliability" && t.health === "up");
    });
    expect(target.lastError).toBe("");
  });

  it("loads every rule of the project's rules file and evaluates each without error", async () => {
    type Rule = { name: string; health: string; lastError?: string; type: string };
    const rules = await until("every rule to have been evaluated", async () => {
      const { groups } = await api<{ groups: { rules: Rule[] }[] }>("rules");
      const all = groups.flatMap((g) => g.rules);
      return all.length > 0 && all.every((r) => r.health !== "unknown") ? all : null;
    });
    expect(rules.map((r) => r.name).sort()).toEqual([
      "MetricDegraded",
      "MetricReliabilityDown",
      "MetricUnreliable",
      "ReliabilityChangeFeedDown",
      "ReliabilityScanStale",
      "ReliabilityScansFailing",
      "ReliabilityStoreDown",
      "TableIncident",
    ]);
    for (const rule of rules)
      expect({ name: rule.name, health: rule.health, lastError: rule.lastError ?? "" }).toEqual({
        name: rule.name,
        health: "ok",
        lastError: "",
      });
  });

  it("fires MetricUnreliable for exactly the metrics the API calls unreliable, not for a healthy one", async () => {
    const res = await fetch(`http://127.0.0.1:${daemon.port}/v1/reliability/status`, { headers: { Authorization: `Bearer ${KEY}` } });
    const listing = (await res.json()) as { metrics: { metric_name: string; status: string }[] };
    const unreliable = listing.metrics
      .filter((m) => m.status === "unreliable")
      .map((m) => m.metric_name)
      .sort();
    expect(unreliable).toContain("gross_revenue");
    expect(listing.metrics.find((m) => m.metric_name === "order_count")?.status).toBe("healthy");

    const fired = await until("MetricUnreliable to fire for every unreliable metric", async () => {
      const names = (await firing("MetricUnreliable")).map((a) => a.labels.metric!).sort();
      return names.length === unreliable.length ? names : null;
    });
    expect(fired).toEqual(unreliable);
    const all = await alerts();
    expect(all.filter((a) => a.labels.metric === "order_count")).toEqual([]);
    expect(all.filter((a) => a.labels.alertname === "ReliabilityScansFailing")).toEqual([]);
  });

  it("fires TableIncident once per table whose open incident makes metrics unreliable; the metrics' alerts carry that table", async () => {
    const get = async <T>(p: string) =>
      (await (await fetch(`http://127.0.0.1:${daemon.port}${p}`, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as T;
    const { incidents } = await get<{ incidents: { id: string; table: string; metrics_unreliable: number }[] }>(
      "/v1/reliability/incidents?state=open",
    );
    const breaking = incidents.filter((i) => i.metrics_unreliable > 0).map((i) => i.table);
    expect(breaking).toContain("shop.orders");
    // metric -> the table label its status series carries (the first open incident's table, by name).
    const explained = new Map<string, string>();
    for (const { id, table } of [...incidents].sort((a, b) => (a.table < b.table ? -1 : 1))) {
      const detail = await get<{ metrics: { metric_name: string; affected: boolean }[] }>(`/v1/reliability/incidents/${id}`);
      for (const m of detail.metrics) if (m.affected && !explained.has(m.metric_name)) explained.set(m.metric_name, table);
    }
    const fired = await until("TableIncident to fire for every table breaking metrics", async () => {
      const tables = (await firing("TableIncident")).map((a) => a.labels.table!).sort();
      return tables.length === breaking.length ? tables : null;
    });
    expect(fired).toEqual([...breaking].sort());
    // So Alertmanager's rule (prometheus/alertmanager-inhibit.yml) inhibits each metric's alert.
    for (const alert of await firing("MetricUnreliable"))
      expect(alert.labels.table, alert.labels.metric).toBe(explained.get(alert.labels.metric!));
  });

  it("fires ReliabilityScansFailing while the warehouse is stopped; statuses keep their last value", async () => {
    await ch.kill();
    const fired = await until("ReliabilityScansFailing to fire", async () => (await firing("ReliabilityScansFailing")).length > 0, 90_000);
    expect(fired).toBe(true);
    expect((await firing("MetricUnreliable")).map((a) => a.labels.metric)).toContain("gross_revenue");
    // The outage is also visible as a series of its own.
    const { result } = await api<{ result: { value: [number, string] }[] }>(
      `query?query=${encodeURIComponent('metric_reliability_warehouse_up{datasource="default"}')}`,
    );
    expect(result.map((r) => r.value[1])).toEqual(["0"]);
  });
});
