// One broken table, one incident, through the real daemon on the real servers (ClickHouse server
// at CLICKHOUSE_URL, PostgreSQL at DATABASE_URL): a table feeding several metrics (one derived)
// gets NULL amounts; the next scan opens ONE incident listing its failing test and every metric
// it makes unreliable, served alike by REST, tRPC, the pages and /metrics; a scan of the unchanged
// data changes nothing; once the table is fixed the next scan resolves it.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createTRPCClient, httpLink } from "@trpc/client";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppRouter } from "../../src/api/trpc/router.js";
import { loadConfig } from "../../src/config/config.js";
import { startDaemon, type Daemon } from "../../src/main.js";
import { execServer } from "../../src/warehouse/clickhouse-server.js";
import { serverConnection, uniqueDatabase } from "../helpers/warehouses.js";
import { targets, type TestDatabase } from "../store/databases.js";
import { webClient } from "../web/web-client.js";

const KEY = "incidents-e2e-key-0123456789";
const clickhouse = serverConnection();
const postgres = targets.find((t) => t.name === "postgres");

interface Summary {
  id: string;
  state: string;
  table: string;
  opened_at: string;
  resolved_at: string | null;
  updated_at: string;
  failing_tests: number;
  metrics_unreliable: number;
  metrics_degraded: number;
}

// CI sets both servers (test/ci-requirements.ts); elsewhere the suite needs them.
describe.skipIf((!clickhouse || !postgres) && !process.env.CI)("incidents on the real servers: one broken table, one incident", () => {
  const db = uniqueDatabase("mr_incidents");
  const exec = (sql: string) => execServer(clickhouse!, [sql]);
  let dir: string;
  let store: TestDatabase;
  let daemon: Daemon;
  const base = () => `http://127.0.0.1:${daemon.port}`;
  const get = async <T = Record<string, unknown>>(p: string): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${base()}${p}`, { headers: { Authorization: `Bearer ${KEY}` } });
    return { status: res.status, body: (await res.json()) as T };
  };
  const scan = async () => {
    const res = await fetch(`${base()}/v1/reliability/scan?wait=true`, { method: "POST", headers: { Authorization: `Bearer ${KEY}` } });
    const body = (await res.json()) as { status: string };
    expect(body.status).toBe("succeeded");
  };
  const trpc = () =>
    createTRPCClient<AppRouter>({ links: [httpLink({ url: `${base()}/trpc`, headers: () => ({ Authorization: `Bearer ${KEY}` }) })] });
  const open = async () => (await get<{ incidents: Summary[]; count: number }>("/v1/reliability/incidents?state=open")).body;
  const fillOrders = async (withNulls: boolean) => {
    await exec(`DROP TABLE IF EXISTS ${db}.orders`);
    await exec(`CREATE TABLE ${db}.orders (id UInt64, amount Nullable(Float64), country String) ENGINE = MergeTree ORDER BY id`);
    await exec(`INSERT INTO ${db}.orders SELECT number + 1, toFloat64(number % 50 + 1), 'DE' FROM numbers(200)`);
    if (withNulls) await exec(`INSERT INTO ${db}.orders SELECT number + 1000, NULL, 'FR' FROM numbers(7)`);
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "mr-incidents-e2e-"));
    await exec(`CREATE DATABASE ${db}`);
    await fillOrders(false);
    await exec(`CREATE TABLE ${db}.refunds (id UInt64, amount Float64) ENGINE = MergeTree ORDER BY id`);
    await exec(`INSERT INTO ${db}.refunds SELECT number + 1, 5 FROM numbers(20)`);
    const metrics = path.join(dir, "metrics");
    await mkdir(metrics);
    await writeFile(
      path.join(metrics, "shop.yaml"),
      [
        "metrics:",
        ...["revenue:Sum", "average_order:Avg", "largest_order:Max"].map((m) => {
          const [name, fn] = m.split(":");
          return `  - { name: ${name}, table: ${db}.orders, measures: [{ alias: v, function: ${fn}, column: amount }], dimensions: [{ name: country, column: country }] }`;
        }),
        `  - { name: order_count, table: ${db}.orders, measures: [{ alias: n, function: Count }] }`,
        `  - { name: refunds_total, table: ${db}.refunds, measures: [{ alias: v, function: Sum, column: amount }] }`,
        "  - { name: revenue_per_order, kind: derived, inputs: [revenue, order_count], expression: revenue / order_count }",
        "",
      ].join("\n"),
    );
    store = await postgres!.fresh();
    daemon = await startDaemon(
      loadConfig({
        PORT: "0",
        HOST: "127.0.0.1",
        CLICKHOUSE_URL: clickhouse!.url,
        ...(clickhouse!.username ? { CLICKHOUSE_USER: clickhouse!.username } : {}),
        ...(clickhouse!.password ? { CLICKHOUSE_PASSWORD: clickhouse!.password } : {}),
        DATABASE_URL: store.options.databaseUrl!,
        METRICS_DIR: metrics,
        API_KEYS: KEY,
        SCAN_SCHEDULE: "off",
        SCAN_ON_START: "false",
        DATA_DIR: path.join(dir, "data"),
      }),
      pino({ level: "silent" }),
    );
  }, 120_000);

  afterAll(async () => {
    await daemon?.stop();
    await store?.drop();
    await exec(`DROP DATABASE IF EXISTS ${db}`).catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  let incident: Summary;

  it("a clean scan opens nothing", async () => {
    await scan();
    expect(await open()).toEqual({ incidents: [], count: 0, next_cursor: null });
    const statuses = (await get<{ metrics: { metric_name: string; status: string }[] }>("/v1/reliability/status")).body.metrics;
    expect(statuses.filter((m) => m.status === "unreliable")).toEqual([]);
  });

  it("NULL amounts in the orders table: the next scan opens ONE incident listing its test and the metrics it breaks", async () => {
    await fillOrders(true);
    await scan();
    const listing = await open();
    expect(listing.count).toBe(1);
    incident = listing.incidents[0]!;
    expect(incident).toMatchObject({ state: "open", table: `${db}.orders`, resolved_at: null, failing_tests: 1, metrics_unreliable: 4 });

    const { status, body } = await get<{
      tests: { rule: string; column: string | null; failing: boolean; message: string }[];
      metrics: { metric_name: string; impact: string; relationship: string; status: string }[];
    }>(`/v1/reliability/incidents/${incident.id}`);
    expect(status).toBe(200);
    expect(body.tests).toEqual([expect.objectContaining({ rule: "measure_not_null", column: "amount", failing: true })]);
    expect(body.tests[0]!.message).toMatch(/7 of 207 rows/);
    expect(body.metrics.map((m) => [m.metric_name, m.impact, m.relationship, m.status])).toEqual([
      ["revenue", "unreliable", "direct", "unreliable"],
      ["average_order", "unreliable", "direct", "unreliable"],
      ["largest_order", "unreliable", "direct", "unreliable"],
      ["revenue_per_order", "unreliable", "derived", "unreliable"],
    ]);
    // order_count (a row count reads no amount) and refunds_total (another table) are untouched.
    const statuses = (await get<{ metrics: { metric_name: string; status: string }[] }>("/v1/reliability/status")).body.metrics;
    expect(statuses.filter((m) => m.status === "unreliable").map((m) => m.metric_name)).toEqual([
      "revenue",
      "average_order",
      "largest_order",
      "revenue_per_order",
    ]);

    // tRPC answers the same.
    expect(await trpc().reliability.incidents.query({ state: "open" })).toEqual(listing);
    expect(await trpc().reliability.incidentById.query({ id: incident.id })).toEqual(body);

    // Prometheus: one incident series for the table, and the four metrics' status series carry its label.
    const text = await (await fetch(`${base()}/metrics`)).text();
    expect(text).toContain(`metric_reliability_incident_open{table="${db}.orders"} 4`);
    const labelled = [...text.matchAll(/^metric_reliability_status\{metric="(\w+)",status="unreliable",table="([^"]+)"\} 1$/gm)];
    expect(labelled.map((m) => [m[1], m[2]])).toEqual(
      ["revenue", "average_order", "largest_order", "revenue_per_order"].map((metric) => [metric, `${db}.orders`]),
    );
    expect(text).toContain('metric_reliability_status{metric="order_count",status="healthy"} 1');

    // The pages: the overview starts with it; its page lists the test and the metrics.
    const web = webClient(daemon.port);
    const cookie = await web.login(KEY);
    const overview = (await web.get("/", cookie)).text;
    expect(overview.indexOf("Open incidents")).toBeGreaterThan(-1);
    expect(overview.indexOf("Open incidents")).toBeLessThan(overview.indexOf("Metrics by status"));
    expect(overview).toContain(`href="/incident/${incident.id}"`);
    const page = await web.get(`/incident/${incident.id}`, cookie);
    expect(page.status).toBe(200);
    for (const metric of ["revenue", "average_order", "largest_order", "revenue_per_order"])
      expect(page.text).toContain(`href="/metric/${metric}"`);
    expect(page.text).toContain("measure_not_null");
    expect(page.text).not.toContain('href="/metric/order_count"');
  });

  it("a scan of the unchanged tables changes nothing about it", async () => {
    await scan();
    const listing = await open();
    expect(listing.incidents).toEqual([incident]);
  });

  it("the table fixed, the next scan resolves it; nothing is open and Prometheus drops it", async () => {
    await fillOrders(false);
    await scan();
    expect(await open()).toEqual({ incidents: [], count: 0, next_cursor: null });
    const resolved = (await get<{ incidents: Summary[]; count: number }>("/v1/reliability/incidents?state=resolved")).body;
    expect(resolved.count).toBe(1);
    expect(resolved.incidents[0]).toMatchObject({ id: incident.id, state: "resolved", failing_tests: 0, metrics_unreliable: 4 });
    expect(Date.parse(resolved.incidents[0]!.resolved_at!)).toBeGreaterThan(Date.parse(incident.opened_at));
    const text = await (await fetch(`${base()}/metrics`)).text();
    expect(text).not.toContain("metric_reliability_incident_open{");
    expect(text).not.toMatch(/metric_reliability_status\{[^}]*table=/);
    expect((await get(`/v1/reliability/incidents/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  });
});
