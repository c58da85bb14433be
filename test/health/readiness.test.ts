// /readyz and the dependency gauges on the real daemon, against a PostgreSQL and a ClickHouse of
// the test's own, each stopped and started again: neither outage makes the replica unready (it
// serves statuses from memory); each shows in the body and in its gauge, and clears once the
// dependency is back. (docs/reliability.md says why; test/e2e/store-outage.e2e.test.ts runs
// the whole 60 s store outage.)
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { READINESS_CACHE_MS } from "../../src/health/readiness.js";
import { startDaemon, type Daemon } from "../../src/main.js";
import { startPrivateClickHouse, type PrivateClickHouse } from "../helpers/private-clickhouse.js";
import { postgresBinDir, startPrivatePostgres, type PrivatePostgres } from "../helpers/private-postgres.js";

// CI has the binaries (and must not skip); elsewhere the suite needs a local PostgreSQL install.
describe.skipIf(!postgresBinDir() && !process.env.CI)("/readyz follows its own PostgreSQL and ClickHouse, both ways", () => {
  let pg: PrivatePostgres;
  let ch: PrivateClickHouse;
  let daemon: Daemon;
  let dataDir: string;
  const base = () => `http://127.0.0.1:${daemon.port}`;

  const readyz = async () => {
    const res = await fetch(`${base()}/readyz`);
    return { status: res.status, body: await res.json() };
  };
  const gauge = async (series: string) => {
    const text = await (await fetch(`${base()}/metrics`)).text();
    const line = text.split("\n").find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  /** Polls /readyz until `done` holds: the check is cached for READINESS_CACHE_MS. */
  const readyzUntil = async (done: (r: Awaited<ReturnType<typeof readyz>>) => boolean) => {
    const deadline = Date.now() + READINESS_CACHE_MS + 20_000;
    let last = await readyz();
    while (!done(last)) {
      if (Date.now() > deadline) throw new Error(`/readyz stayed ${last.status} ${JSON.stringify(last.body)}`);
      await sleep(250);
      last = await readyz();
    }
    return last;
  };

  beforeAll(async () => {
    [pg, ch] = await Promise.all([startPrivatePostgres(), startPrivateClickHouse()]);
    dataDir = await mkdtemp(path.join(os.tmpdir(), "mr-readiness-"));
    const config = loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      DATABASE_URL: pg.url,
      CLICKHOUSE_URL: ch.url,
      API_KEYS: "readiness-test-key-0123456789",
      SCAN_SCHEDULE: "off",
      SCAN_ON_START: "false",
      DATA_DIR: dataDir,
    });
    daemon = await startDaemon(config, pino({ level: "silent" }));
  });
  afterAll(async () => {
    await daemon?.stop();
    await Promise.all([pg?.dispose(), ch?.dispose()]);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("is ready with both up, and says so per dependency", async () => {
    expect(await readyz()).toMatchObject({
      status: 200,
      body: { status: "ready", store: { status: "up" }, warehouses: { default: { status: "up" } } },
    });
    expect(await gauge("metric_reliability_store_up")).toBe(1);
    expect(await gauge('metric_reliability_warehouse_up{datasource="default"}')).toBe(1);
  });

  it("stays ready while its ClickHouse is down, showing the outage in the body and in /metrics", async () => {
    await ch.kill();
    const down = await readyzUntil((r) => r.body.warehouses?.default?.status === "down");
    expect(down).toMatchObject({
      status: 200,
      body: { status: "ready", store: { status: "up" }, warehouses: { default: { message: "the warehouse did not answer SELECT 1" } } },
    });
    expect(await gauge('metric_reliability_warehouse_up{datasource="default"}')).toBe(0);
    await ch.start();
    await readyzUntil((r) => r.body.warehouses?.default?.status === "up");
    expect(await gauge('metric_reliability_warehouse_up{datasource="default"}')).toBe(1);
  });

  it("stays ready while its PostgreSQL is down (statuses come from memory), showing the outage, then shows it back", async () => {
    await pg.stop();
    const down = await readyzUntil((r) => r.body.store?.status === "down");
    expect(down).toMatchObject({
      status: 200,
      body: {
        status: "ready",
        store: { status: "down", message: "the store did not answer SELECT 1" },
        warehouses: { default: { status: "up" } },
      },
    });
    expect(await gauge("metric_reliability_store_up")).toBe(0);
    await pg.start();
    expect(await readyzUntil((r) => r.body.store?.status === "up")).toMatchObject({ status: 200, body: { status: "ready" } });
    expect(await gauge("metric_reliability_store_up")).toBe(1);
  });
});
