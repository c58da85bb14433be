// Requests meant to hurt, on the real daemon: a 1,000-call tRPC batch, answers too large to send,
// key guessing (per client, at /v1, /trpc and /login), one write budget per key across the pages
// and the API, /metrics behind METRICS_TOKEN, Host names outside ALLOWED_HOSTS, control and
// direction characters on a page, and a logout that ends the session on every replica. Each
// answer's time is printed (docs/reliability.md, "Hostile requests").
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_METRICS_DIR } from "../../src/config/config.js";
import { csrfToken, webClient, type WebClient } from "../web/web-client.js";
import { RO_KEY, RW_KEY, combinations, launch, type Backend, type RunningDaemon } from "./daemon-harness.js";

const KEY_B = "hostile-second-write-key-0123456789";
const METRICS_TOKEN = "hostile-metrics-token-0123456789";
const HOST = "reliability.example.com";
const embedded = combinations.find((c) => c.name === "embedded")!;
const server = combinations.find((c) => c.name === "server")!;

/** A demo catalogue plus a metric whose description and filter carry a right-to-left override. */
async function catalogueWithBidi(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mr-hostile-metrics-"));
  await cp(DEMO_METRICS_DIR, dir, { recursive: true });
  await writeFile(
    path.join(dir, "bidi.yaml"),
    `metrics:
  - name: bidi_orders
    description: "Orders \\u202Edesrever"
    datasource: default
    table: shop.orders
    timestamp: created_at
    filter: "status != 'x\\u202E\\u200F'"
    measures:
      - { alias: orders, function: Count }
`,
  );
  return dir;
}

/** ms a request took */
async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, Math.round(performance.now() - started)];
}

const report = (what: string, answer: string, ms: number) => console.log(`hostile request: ${what} -> ${answer} in ${ms} ms`);

describe(`hostile requests [${embedded.label}]`, () => {
  let backend: Backend | undefined;
  let d: RunningDaemon;
  let web: WebClient;
  let metricsDir: string;
  /** a client of its own (X-Forwarded-For through TRUST_PROXY=loopback), so the wrong-key counts do not mix */
  const from = (client: string, key?: string) => ({ key, headers: { "x-forwarded-for": client } });

  beforeAll(async () => {
    metricsDir = await catalogueWithBidi();
    backend = await embedded.prepare();
    d = await launch(backend, {
      SCAN_ON_START: "false",
      METRICS_DIR: metricsDir,
      API_KEYS: [RW_KEY, KEY_B].join(","),
      POST_RATE_LIMIT: "3",
      POST_RATE_LIMIT_WINDOW_SECONDS: "60",
      MAX_ANSWER_BYTES: "8192",
      METRICS_TOKEN,
      ALLOWED_HOSTS: `${HOST},.internal.example`,
      TRUST_PROXY: "loopback",
    });
    web = webClient(d.daemon.port);
  });
  afterAll(async () => {
    await d?.stop();
    await backend?.dispose();
    await rm(metricsDir, { recursive: true, force: true });
  });

  it("refuses a 1,000-call tRPC batch from a read-only key within a second, before any call; the daemon stays up", async () => {
    const calls = Array.from({ length: 1000 }, () => "compiler.ir").join(",");
    // Warmed up first (the daemon's first tRPC request compiles code paths), so the time is the refusal's.
    expect(
      (await d.request("GET", `/trpc/reliability.statusByName?input=${encodeURIComponent('{"name":"gross_revenue"}')}`, { key: RO_KEY }))
        .status,
    ).toBe(200);
    // A 12 KB URL, as in the request that once took the daemon down (compiler.ir's input may be left out).
    const [res, ms] = await timed(() => d.request("GET", `/trpc/${calls}?batch=1`, { key: RO_KEY }));
    report("GET /trpc, a batch of 1,000 compiler.ir calls (read-only key)", String(res.status), ms);
    expect(res.status).toBe(400);
    expect(ms).toBeLessThan(1000);
    expect(JSON.stringify(res.body)).toContain("a tRPC batch may hold at most 20 calls");
    // 21 is one too many; 20 are answered.
    const batch = (n: number) =>
      d.request(
        "GET",
        `/trpc/${Array.from({ length: n }, () => "reliability.statusByName").join(",")}?batch=1&input=${encodeURIComponent(
          JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, { name: "gross_revenue" }]))),
        )}`,
        { key: RO_KEY },
      );
    expect((await batch(21)).status).toBe(400);
    const twenty = await batch(20);
    expect(twenty.status).toBe(200);
    expect(twenty.body).toHaveLength(20);
    expect((await d.request("GET", "/healthz")).status).toBe(200);
    expect((await d.request("GET", "/v1/reliability/status/gross_revenue", { key: RO_KEY })).status).toBe(200);
  });

  it("refuses an answer over MAX_ANSWER_BYTES with a message saying how to page; a batch's calls count together", async () => {
    const [whole, ms] = await timed(() => d.request("GET", "/v1/compiler/ir", { key: RO_KEY }));
    report("GET /v1/compiler/ir, the whole catalogue over MAX_ANSWER_BYTES", String(whole.status), ms);
    expect(whole.status).toBe(400);
    expect(whole.body.error.code).toBe("bad_request");
    expect(whole.body.error.message).toMatch(/over the 0\.0 MiB one request may be answered with \(MAX_ANSWER_BYTES\): ask for pages/);
    const page = await d.request("GET", "/v1/compiler/ir?limit=2", { key: RO_KEY });
    expect(page.status).toBe(200);
    expect(page.body.metrics).toHaveLength(2);
    // tRPC: the whole catalogue is refused the same way; pages are answered until the batch's total is over.
    const trpcWhole = await d.request("GET", `/trpc/compiler.ir?input=${encodeURIComponent("{}")}`, { key: RO_KEY });
    expect(trpcWhole.status).toBe(400);
    expect(trpcWhole.body.error.message).toContain("MAX_ANSWER_BYTES");
    const pages = await d.request(
      "GET",
      `/trpc/${Array.from({ length: 8 }, () => "compiler.ir").join(",")}?batch=1&input=${encodeURIComponent(
        JSON.stringify(Object.fromEntries(Array.from({ length: 8 }, (_, i) => [i, { limit: 2 }]))),
      )}`,
      { key: RO_KEY },
    );
    const outcomes = (pages.body as { result?: unknown; error?: { message: string } }[]).map((r) => (r.result ? "ok" : "refused"));
    expect(outcomes.filter((o) => o === "ok").length).toBeGreaterThan(0);
    expect(outcomes).toContain("refused");
  });

  it("throttles wrong keys per client at /v1: 429 with Retry-After after 10, the right key too; other clients unaffected", async () => {
    for (let i = 0; i < 10; i += 1) {
      expect((await d.request("GET", "/v1/reliability/status", from("203.0.113.1", `wrong-key-${i}-0123456789`))).status).toBe(401);
    }
    const [refused, ms] = await timed(() => d.request("GET", "/v1/reliability/status", from("203.0.113.1", "wrong-key-x-0123456789")));
    report("GET /v1/reliability/status, the 11th wrong key in a minute from one client", String(refused.status), ms);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers["retry-after"]);
    expect(retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(refused.body.error.message).toMatch(/^too many wrong API keys from this client \(10 per 60s\); retry in \d+s$/);
    // Refused before the key is compared: a right key from that client is refused too.
    expect((await d.request("GET", "/v1/reliability/status", from("203.0.113.1", RO_KEY))).status).toBe(429);
    expect((await d.request("GET", "/v1/reliability/status", from("203.0.113.2", RO_KEY))).status).toBe(200);
  });

  it("throttles wrong keys at /trpc (a batch counts once) and at the login form, with the same count", async () => {
    const call = (client: string, key: string) =>
      d.request(
        "GET",
        `/trpc/reliability.status,reliability.status?batch=1&input=${encodeURIComponent('{"0":{},"1":{}}')}`,
        from(client, key),
      );
    for (let i = 0; i < 10; i += 1) expect((await call("203.0.113.3", `wrong-key-${i}-0123456789`)).status).not.toBe(429);
    const [refused, trpcMs] = await timed(() => call("203.0.113.3", RO_KEY));
    report("GET /trpc, a batch after 10 wrong keys in a minute from one client", String(refused.status), trpcMs);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);

    // The login form: 5 wrong keys there and 5 at /v1 from one client make 10.
    const login = (key: string) => web.post("/login", null, { key, next: "/" }, { "x-forwarded-for": "203.0.113.4" });
    for (let i = 0; i < 5; i += 1) expect((await login(`wrong-key-${i}-0123456789`)).status).toBe(401);
    for (let i = 0; i < 5; i += 1) {
      expect((await d.request("GET", "/v1/reliability/status", from("203.0.113.4", `wrong-${i}-0123456789ab`))).status).toBe(401);
    }
    const [page, ms] = await timed(() => login(RW_KEY));
    report("POST /login after 10 wrong keys in a minute from one client", String(page.status), ms);
    expect(page.status).toBe(429);
    expect(Number(page.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(page.text).toContain("Too many wrong API keys from this client");
    expect(page.headers["set-cookie"]).toBeUndefined();
  });

  it("counts the pages' writes and the API's against one budget per key", async () => {
    const cookie = await web.login(KEY_B);
    const scanForm = async () => {
      const page = await web.get("/", cookie);
      return web.post("/scan", cookie, { _csrf: csrfToken(page.text), next: "/" });
    };
    expect((await scanForm()).status).toBe(303);
    expect((await scanForm()).status).toBe(303);
    expect((await d.request("POST", "/v1/reliability/scan", { key: KEY_B })).status).toBe(202);
    // The budget (3 per minute) is spent, whichever way the next write comes.
    const [api, ms] = await timed(() => d.request("POST", "/v1/reliability/scan", { key: KEY_B }));
    report("POST /v1/reliability/scan, the 4th write of one key in a minute (2 by the pages, 1 by the API)", String(api.status), ms);
    expect(api.status).toBe(429);
    expect(api.body.error.message).toContain("pages and API together");
    expect((await scanForm()).status).toBe(429);
    // Another key has its own budget.
    expect((await d.request("POST", "/v1/reliability/scan", { key: RW_KEY })).status).toBe(202);
  });

  it("protects /metrics with METRICS_TOKEN", async () => {
    const host = { headers: { host: HOST } };
    const [none, ms] = await timed(() => d.request("GET", "/metrics", host));
    report("GET /metrics without METRICS_TOKEN", String(none.status), ms);
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toBe("Bearer");
    expect(none.text).not.toContain("gross_revenue");
    expect((await d.request("GET", "/metrics", { ...host, key: "not-the-metrics-token-0123" })).status).toBe(401);
    // An API key is not the metrics token.
    expect((await d.request("GET", "/metrics", { ...host, key: RW_KEY })).status).toBe(401);
    const scraped = await d.request("GET", "/metrics", { ...host, key: METRICS_TOKEN });
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain("metric_reliability_scans_total");
    // The probes stay open.
    expect((await d.request("GET", "/healthz", host)).status).toBe(200);
  });

  it("answers only the Host names in ALLOWED_HOSTS (and IP addresses: probes and scrapes)", async () => {
    const [other, ms] = await timed(() => d.request("GET", "/v1/reliability/status", { key: RO_KEY, headers: { host: "evil.example" } }));
    report("GET /v1/reliability/status with Host: evil.example (ALLOWED_HOSTS set)", String(other.status), ms);
    expect(other.status).toBe(400);
    expect(other.body.error.message).toContain("ALLOWED_HOSTS");
    expect((await d.request("GET", "/login", { headers: { host: `evil.example:${d.daemon.port}` } })).status).toBe(400);
    expect((await d.request("GET", "/metrics", { key: METRICS_TOKEN, headers: { host: "rebind.evil.example" } })).status).toBe(400);
    expect((await d.request("GET", "/v1/reliability/status", { key: RO_KEY, headers: { host: `${HOST}:443` } })).status).toBe(200);
    expect((await d.request("GET", "/healthz", { headers: { host: "a.internal.example" } })).status).toBe(200);
    expect((await d.request("GET", "/healthz", { headers: { host: "internal.example.evil" } })).status).toBe(400);
    // The harness' own requests name 127.0.0.1:<port>.
    expect((await d.request("GET", "/healthz")).status).toBe(200);
  });

  it("shows control and direction characters escaped on a page: the SQL shown is the SQL copied", async () => {
    const cookie = await web.login(RO_KEY);
    const page = await web.get("/metric/bidi_orders", cookie);
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/[\u202E\u200F]/);
    const escaped = (c: string) => `<span class="escaped" title="a control or direction character">\\u${c}</span>`;
    expect(page.text).toContain(`x${escaped("202E")}${escaped("200F")}`);
    expect(page.text).toContain(`Orders ${escaped("202E")}desrever`);
    // The API answers the data as it is.
    const ir = await d.request("GET", "/v1/compiler/ir/bidi_orders", { key: RO_KEY });
    expect(ir.body.filter).toContain("\u202E");
  });
});

describe.skipIf(server.skip !== null)(
  `logout on every replica: two daemons on one store [${server.label}]${server.skip ? ` skipped: ${server.skip}` : ""}`,
  () => {
    let backend: Backend | undefined;
    const daemons: RunningDaemon[] = [];

    beforeAll(async () => {
      backend = await server.prepare();
      daemons.push(await launch(backend, { SCAN_ON_START: "false" }));
      daemons.push(await launch(backend, { SCAN_ON_START: "false" }));
    });
    afterAll(async () => {
      for (const d of daemons) await d.stop();
      await backend?.dispose();
    });

    it("a cookie logged out on one replica is refused by the other", async () => {
      const [a, b] = daemons.map((d) => webClient(d.daemon.port)) as [WebClient, WebClient];
      const cookie = await a.login(RW_KEY);
      expect((await b.get("/", cookie)).status).toBe(200);
      const page = await a.get("/", cookie);
      expect((await a.post("/logout", cookie, { _csrf: csrfToken(page.text) })).status).toBe(303);
      const started = performance.now();
      expect((await a.get("/", cookie)).status).toBe(303);
      // The other replica reads revocations at most a second old.
      let status = 0;
      while (performance.now() - started < 5_000) {
        status = (await b.get("/", cookie)).status;
        if (status === 303) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      report("GET / on another replica with a cookie logged out", `${status} after`, Math.round(performance.now() - started));
      expect(status).toBe(303);
      expect((await b.get("/", cookie)).headers.location).toBe("/login");
    });
  },
);
