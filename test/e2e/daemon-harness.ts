// Starts the real daemon (startDaemon from src/main.ts, config from loadConfig) on each
// deployment the e2e suites cover, and gives tests raw HTTP, tRPC and warehouse access to it.
//   server:   PostgreSQL (a fresh database on the DATABASE_URL server) + the ClickHouse server
//             at CLICKHOUSE_URL, with the demo `shop` dataset seeded into it (server-shop.ts)
//   embedded: PGlite + chdb in a temp DATA_DIR; the daemon seeds the demo dataset itself
// One daemon per test file (useDaemon's beforeAll): each start costs seconds.
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createTRPCClient, httpBatchLink, httpLink } from "@trpc/client";
import { pino } from "pino";
import { afterAll, beforeAll, describe } from "vitest";
import type { AppRouter } from "../../src/api/trpc/router.js";
import { loadConfig } from "../../src/config/config.js";
import { startDaemon, type Daemon } from "../../src/main.js";
import { createEmbeddedWarehouse } from "../../src/warehouse/chdb-engine.js";
import { createServerWarehouse } from "../../src/warehouse/clickhouse-server.js";
import type { Warehouse } from "../../src/warehouse/warehouse.js";
import { seedEmbeddedStore } from "../helpers/pglite-template.js";
import { serverConnection } from "../helpers/warehouses.js";
import { targets } from "../store/databases.js";
import { promSample } from "./expected.js";
import { holdDemoShop } from "./server-shop.js";

export const RW_KEY = "e2e-read-write-key-0123456789";
export const RO_KEY = "e2e-read-only-key-0123456789";

export interface Backend {
  /** the deployment's own variables (store and warehouse); DATA_DIR is always set */
  env: Record<string, string>;
  dataDir: string;
  /** SQL on the store's database: PostgreSQL only (the daemon holds PGlite's directory) */
  storeQuery: (<T = Record<string, unknown>>(sql: string) => Promise<T[]>) | null;
  /** A read-only warehouse over the data the daemon scans; open it after the daemon started. */
  openWarehouse(): Promise<Warehouse>;
  dispose(): Promise<void>;
}

export interface Combination {
  name: "server" | "embedded";
  label: string;
  /** why the combination cannot run here, or null */
  skip: string | null;
  prepare(): Promise<Backend>;
}

const tempDir = () => mkdtemp(path.join(os.tmpdir(), "mr-e2e-"));

const postgres = targets.find((t) => t.name === "postgres");
const clickhouse = serverConnection();

const server: Combination = {
  name: "server",
  label: "server: PostgreSQL + ClickHouse server",
  skip: postgres && clickhouse ? null : "set CLICKHOUSE_URL and DATABASE_URL to run against real PostgreSQL and ClickHouse servers",
  async prepare() {
    const conn = clickhouse!;
    const releaseShop = await holdDemoShop(process.env.DATABASE_URL!, conn);
    const db = await postgres!.fresh().catch(async (error: unknown) => {
      await releaseShop();
      throw error;
    });
    const dataDir = await tempDir();
    const env: Record<string, string> = { DATABASE_URL: db.options.databaseUrl!, CLICKHOUSE_URL: conn.url };
    if (conn.username) env.CLICKHOUSE_USER = conn.username;
    if (conn.password) env.CLICKHOUSE_PASSWORD = conn.password;
    return {
      env,
      dataDir,
      storeQuery: (sql) => db.query(sql),
      openWarehouse: async () => createServerWarehouse({ ...conn, name: "default", timeoutSeconds: 30 }),
      async dispose() {
        await db.drop();
        await releaseShop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  },
};

const embedded: Combination = {
  name: "embedded",
  label: "embedded: PGlite + chdb",
  skip: null,
  async prepare() {
    const dataDir = await tempDir();
    await seedEmbeddedStore(dataDir);
    return {
      env: {},
      dataDir,
      storeQuery: null,
      // chdb allows several sessions on the one data directory of the process: the daemon's.
      openWarehouse: () => createEmbeddedWarehouse({ name: "default", dataDir, timeoutSeconds: 30 }),
      dispose: () => rm(dataDir, { recursive: true, force: true }),
    };
  },
};

export const combinations: Combination[] = [server, embedded];
/**
 * The combinations describeCombinations runs. MR_SERVER_ENGINES_ONLY=1 with both servers set leaves
 * the embedded one out: .ci/run's first pass sets it, and its newcomer pass (no server variables)
 * runs the same suites embedded, so each runs once on each combination (as storeTargets and
 * engineCases do).
 */
const described: Combination[] = process.env.MR_SERVER_ENGINES_ONLY === "1" && server.skip === null ? [server] : combinations;

/** One describe block per combination; a combination that cannot run is skipped, saying why. */
export function describeCombinations(title: string, body: (combination: Combination) => void): void {
  for (const c of described) {
    describe.skipIf(c.skip !== null)(`${title} [${c.label}]${c.skip ? ` skipped: ${c.skip}` : ""}`, () => body(c));
  }
}

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** parsed JSON, or undefined when the body is not JSON */
  body: any;
}

export interface RequestOptions {
  key?: string;
  /** raw Authorization header (wins over key) */
  authorization?: string;
  body?: string;
  headers?: Record<string, string>;
}

export interface RunningDaemon {
  daemon: Daemon;
  base: string;
  /** warn and error entries the daemon logged */
  logs: { level: number; msg?: string }[];
  /** Raw HTTP: the path is sent exactly as given (no URL normalisation of `..`). */
  request(method: string, path: string, options?: RequestOptions): Promise<HttpResult>;
  /** GET/POST with the read-write key, expecting a 2xx; returns the parsed body. */
  get(path: string): Promise<any>;
  trpc(key?: string, link?: "batch" | "single"): ReturnType<typeof createTRPCClient<AppRouter>>;
  stop(): Promise<void>;
}

export function baseEnv(backend: Backend): Record<string, string> {
  return {
    PORT: "0",
    HOST: "127.0.0.1",
    SCAN_SCHEDULE: "off",
    SCAN_ON_START: "true",
    API_KEYS: RW_KEY,
    API_READONLY_KEYS: RO_KEY,
    DATA_DIR: backend.dataDir,
    LOG_LEVEL: "silent",
    ...backend.env,
  };
}

function httpRequest(port: number, method: string, urlPath: string, options: RequestOptions = {}): Promise<HttpResult> {
  const headers: Record<string, string> = { ...options.headers };
  const authorization = options.authorization ?? (options.key ? `Bearer ${options.key}` : undefined);
  if (authorization !== undefined) headers.authorization = authorization;
  if (options.body !== undefined) headers["content-length"] = String(Buffer.byteLength(options.body));
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path: urlPath, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Starts the daemon on `backend`; `overrides` replace configuration variables. */
export async function launch(backend: Backend, overrides: Record<string, string> = {}): Promise<RunningDaemon> {
  const logs: RunningDaemon["logs"] = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => void logs.push(JSON.parse(line) as RunningDaemon["logs"][number]) });
  const daemon = await startDaemon(loadConfig({ ...baseEnv(backend), ...overrides }), logger);
  const base = `http://127.0.0.1:${daemon.port}`;
  const request = (method: string, urlPath: string, options?: RequestOptions) => httpRequest(daemon.port, method, urlPath, options);
  return {
    daemon,
    base,
    logs,
    request,
    async get(urlPath) {
      const res = await request("GET", urlPath, { key: RW_KEY });
      if (res.status !== 200) throw new Error(`GET ${urlPath}: ${res.status} ${res.text}`);
      return res.body;
    },
    trpc(key, link = "batch") {
      const make = link === "batch" ? httpBatchLink : httpLink;
      return createTRPCClient<AppRouter>({
        links: [make({ url: `${base}/trpc`, headers: () => (key ? { Authorization: `Bearer ${key}` } : {}) })],
      });
    },
    stop: () => daemon.stop(),
  };
}

/** Waits until the start-up scan (SCAN_ON_START) has finished; throws if it failed. */
export async function waitForStartupScan(d: RunningDaemon, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const text = (await d.request("GET", "/metrics")).text;
    if (promSample(text, "metric_reliability_scans_total", { trigger: "startup", outcome: "failed" }) !== 0) {
      throw new Error(`the start-up scan failed: ${JSON.stringify(d.logs)}`);
    }
    if (promSample(text, "metric_reliability_scans_total", { trigger: "startup", outcome: "succeeded" }) === 1) return;
    await sleep(50);
  }
  throw new Error("the start-up scan did not finish in time");
}

export interface Session {
  backend: Backend;
  d: RunningDaemon;
  warehouse: Warehouse;
}

/** beforeAll: prepare the combination, start one daemon, wait for its start-up scan. afterAll: tear down. */
export function useDaemon(combination: Combination, overrides: Record<string, string> = {}): () => Session {
  let session: Session | undefined;
  let backend: Backend | undefined;
  let d: RunningDaemon | undefined;
  beforeAll(async () => {
    backend = await combination.prepare();
    d = await launch(backend, overrides);
    await waitForStartupScan(d);
    session = { backend, d, warehouse: await backend.openWarehouse() };
  });
  afterAll(async () => {
    await session?.warehouse.close();
    await d?.stop();
    await backend?.dispose();
  });
  return () => {
    if (!session) throw new Error("the daemon did not start");
    return session;
  };
}
