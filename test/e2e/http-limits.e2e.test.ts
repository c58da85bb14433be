// The HTTP limits on the real daemon, through both transports: the per-key rate limit on writes
// (429 + Retry-After), the request body cap, the time to receive a request (408) and to answer
// one (503), and tRPC mutations sent without a Content-Type.
import { randomUUID } from "node:crypto";
import net from "node:net";
import { TRPCClientError } from "@trpc/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RO_KEY, RW_KEY, combinations, launch, type Backend, type RunningDaemon } from "./daemon-harness.js";
import { responseValidator } from "./openapi-validator.js";

const KEY_B = "limits-second-write-key-0123456789";
const KEY_C = "limits-third-write-key-0123456789";
const KEY_D = "limits-fourth-write-key-0123456789";
const embedded = combinations.find((c) => c.name === "embedded")!;
const server = combinations.find((c) => c.name === "server")!;

/** One daemon per describe block, with `overrides` on top of the harness' configuration. */
function useLaunched(prepare: () => Promise<Backend>, overrides: Record<string, string>): () => RunningDaemon {
  let backend: Backend | undefined;
  let d: RunningDaemon | undefined;
  beforeAll(async () => {
    backend = await prepare();
    d = await launch(backend, overrides);
  });
  afterAll(async () => {
    await d?.stop();
    await backend?.dispose();
  });
  return () => d!;
}

async function trpcFailure(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  const e = error as TRPCClientError<never>;
  return { message: e.message, data: e.data as unknown as { code: string; httpStatus: number; appCode: string } };
}

describe(`rate limit, body limit and content type [${embedded.label}]`, () => {
  const daemon = useLaunched(() => embedded.prepare(), {
    SCAN_ON_START: "false",
    API_KEYS: [RW_KEY, KEY_B, KEY_C, KEY_D].join(","),
    POST_RATE_LIMIT: "2",
    POST_RATE_LIMIT_WINDOW_SECONDS: "60",
    REQUEST_BODY_LIMIT_BYTES: "64",
  });

  it("limits writes per key: the third POST in the window is 429 with Retry-After, on both transports", async () => {
    const d = daemon();
    expect((await d.request("POST", "/v1/reliability/scan", { key: RW_KEY })).status).toBe(202);
    expect((await d.request("POST", "/v1/reliability/scan?wait=true", { key: RW_KEY })).status).toBe(200);
    const limited = await d.request("POST", "/v1/semantic-tests/run", { key: RW_KEY });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers["retry-after"]);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(limited.body).toEqual({
      error: {
        code: "rate_limited",
        message: expect.stringMatching(
          /^too many write requests with this API key \(limit 2 per 60s, pages and API together\); retry in \d+s$/,
        ),
      },
    });
    responseValidator((await d.request("GET", "/v1/openapi.json")).body).validate("post", "/v1/semantic-tests/run", limited);

    // tRPC mutations share the key's budget, and keep tRPC's envelope.
    const raw = await d.request("POST", "/trpc/reliability.scan", {
      key: RW_KEY,
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(raw.status).toBe(429);
    expect(Number(raw.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    const viaClient = await trpcFailure(d.trpc(RW_KEY, "single").semanticTests.run.mutate());
    expect(viaClient.data).toMatchObject({ code: "TOO_MANY_REQUESTS", httpStatus: 429, appCode: "rate_limited" });

    // Reads are not limited; another key has its own budget; a read-only key is refused before counting.
    expect((await d.request("GET", "/v1/reliability/status", { key: RW_KEY })).status).toBe(200);
    expect((await d.request("POST", "/v1/reliability/scan", { key: KEY_B })).status).toBe(202);
    expect((await d.request("POST", "/v1/reliability/scan", { key: RO_KEY })).status).toBe(403);
    expect(d.logs.filter((l) => l.level >= 50)).toEqual([]);
  });

  it("caps request bodies at REQUEST_BODY_LIMIT_BYTES: 400 bad_request on both transports", async () => {
    const d = daemon();
    const body = JSON.stringify({ padding: "x".repeat(100) });
    const rest = await d.request("POST", "/v1/reliability/scan", { key: KEY_C, headers: { "content-type": "application/json" }, body });
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({ error: { code: "bad_request", message: "request body too large (limit 64 bytes)" } });
    responseValidator((await d.request("GET", "/v1/openapi.json")).body).validate("post", "/v1/reliability/scan", rest);
    const trpc = await d.request("POST", "/trpc/reliability.scan", { key: KEY_C, headers: { "content-type": "application/json" }, body });
    expect(trpc.status).toBe(400);
    expect(trpc.body.error.data).toMatchObject({ code: "BAD_REQUEST", httpStatus: 400, appCode: "bad_request" });
  });

  it("runs a tRPC mutation sent without Content-Type or body, and answers 400 bad_request to a non-JSON one", async () => {
    const d = daemon();
    const bare = await d.request("POST", "/trpc/semanticTests.run", { key: KEY_D });
    expect(bare.status, bare.text).toBe(200);
    expect(bare.body.result.data.summary.total).toBeGreaterThan(0);
    const text = await d.request("POST", "/trpc/semanticTests.run", { key: KEY_D, headers: { "content-type": "text/plain" }, body: "run" });
    expect(text.status).toBe(400);
    expect(text.body.error.data).toMatchObject({ code: "BAD_REQUEST", httpStatus: 400, appCode: "bad_request" });
  });
});

describe.skipIf(server.skip !== null)(`request timeouts [${server.label}]${server.skip ? ` skipped: ${server.skip}` : ""}`, () => {
  let backend: Backend;
  let d: RunningDaemon;
  let locker: pg.Client;
  beforeAll(async () => {
    backend = await server.prepare();
    d = await launch(backend, { SCAN_ON_START: "false", REQUEST_TIMEOUT_SECONDS: "1", SCAN_WAIT_TIMEOUT_SECONDS: "2" });
    locker = new pg.Client({ connectionString: backend.env.DATABASE_URL });
    await locker.connect();
  });
  afterAll(async () => {
    await locker?.end();
    await d?.stop();
    await backend?.dispose();
  });

  it("answers 408 and closes a connection whose request does not arrive within REQUEST_TIMEOUT_SECONDS", async () => {
    const socket = net.connect(d.daemon.port, "127.0.0.1");
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      let text = "";
      socket.on("data", (chunk) => (text += chunk.toString("utf8")));
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
      // Headers, then nothing: a client that stalls (or trickles) its request.
      socket.write(`GET /v1/reliability/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${RW_KEY}\r\n`);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("answers 503 when the store holds a read or a write beyond its deadline, and recovers", async () => {
    // Not ?wait=true: under load the scan itself could take longer than this daemon's 2 s.
    const scanId = (await d.request("POST", "/v1/reliability/scan", { key: RW_KEY })).body.scan_id as string;
    await locker.query("BEGIN");
    await locker.query("LOCK TABLE scans IN ACCESS EXCLUSIVE MODE");
    try {
      let started = Date.now();
      const read = await d.request("GET", `/v1/reliability/scans/${scanId}`, { key: RW_KEY });
      expect(read.status).toBe(503);
      expect(read.body).toEqual({ error: { code: "unavailable", message: expect.stringMatching(/^request timed out after 1s/) } });
      responseValidator((await d.request("GET", "/v1/openapi.json")).body).validate("get", "/v1/reliability/scans/{id}", read);
      expect(Date.now() - started).toBeLessThan(5_000);

      const trpcRead = await trpcFailure(d.trpc(RW_KEY, "single").reliability.scanById.query({ id: scanId }));
      expect(trpcRead.data).toMatchObject({ httpStatus: 503, appCode: "unavailable" });
      expect(trpcRead.message).toMatch(/^request timed out after 1s/);

      // Writes wait longer (SCAN_WAIT_TIMEOUT_SECONDS): a POST that waits for a scan gets 2 s.
      started = Date.now();
      const write = await d.request("POST", "/v1/reliability/scan?wait=true", { key: RW_KEY });
      expect(write.status).toBe(503);
      expect(write.body.error.message).toMatch(/^request timed out after 2s/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    } finally {
      await locker.query("ROLLBACK");
    }
    // The held requests finish into the void; the daemon goes on answering.
    const after = await d.request("GET", `/v1/reliability/scans/${scanId}`, { key: RW_KEY });
    expect(after.status).toBe(200);
    expect((await d.request("GET", `/v1/reliability/scans/${randomUUID()}`, { key: RW_KEY })).status).toBe(404);
    expect(d.logs.filter((l) => l.level >= 50)).toEqual([]);
  });
});
