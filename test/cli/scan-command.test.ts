// `scan` as a pipeline's circuit breaker, run as a real process: exit 1 for an unreliable demo
// metric, 0 for a healthy one, 2 when there is no verdict. Both sources: the configured
// warehouse (scanned by the CLI itself) and a running daemon (--server), on every deployment.
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeCombinations, RO_KEY, RW_KEY, useDaemon } from "../e2e/daemon-harness.js";
import { EXPECTED_STATUS, problemsOf } from "../e2e/expected.js";
import { runCli } from "./run-cli.js";

const UNRELIABLE = "gross_revenue";
const HEALTHY = "order_count";
const DEGRADED = "active_customers";
expect(EXPECTED_STATUS[UNRELIABLE]).toBe("unreliable");
expect(EXPECTED_STATUS[HEALTHY]).toBe("healthy");
expect(EXPECTED_STATUS[DEGRADED]).toBe("degraded");

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describeCombinations("metric-reliability scan", (combination) => {
  const session = useDaemon(combination);

  describe("against the configured warehouse", () => {
    // The CLI's own engine and data directory: never the running daemon's.
    let env: Record<string, string>;
    let dataDir: string;
    beforeAll(async () => {
      dataDir = await mkdtemp(path.join(os.tmpdir(), "mr-cli-scan-"));
      const { DATABASE_URL: _store, ...warehouseEnv } = session().backend.env;
      env = { ...warehouseEnv, DATA_DIR: dataDir };
    });
    afterAll(() => rm(dataDir, { recursive: true, force: true }));

    it(`exits 1 for an unreliable metric (${UNRELIABLE}) and names the failing test`, async () => {
      const run = await runCli(["scan", "--metric", UNRELIABLE], env);
      expect(run.code, run.stderr).toBe(1);
      const [problem] = problemsOf(UNRELIABLE);
      expect(run.stdout).toContain(`${problem!.rule}: ${problem!.message}`);
      expect(run.stdout).toContain(`NOT safe to use: ${UNRELIABLE}`);
    });

    it(`exits 0 for a healthy (${HEALTHY}) and a degraded (${DEGRADED}) metric`, async () => {
      const run = await runCli(["scan", "--metric", HEALTHY, "--metric", DEGRADED, "--json"], env);
      expect(run.code, run.stderr).toBe(0);
      const report = JSON.parse(run.stdout);
      expect(report.safe_to_use).toBe(true);
      expect(report.metrics.map((m: { metric_name: string; status: string }) => [m.metric_name, m.status])).toEqual([
        [HEALTHY, "healthy"],
        [DEGRADED, "degraded"],
      ]);
    });

    it("exits 1 when one of several metrics is not safe", async () => {
      const run = await runCli(["scan", "--metric", HEALTHY, "--metric", UNRELIABLE, "--json"], env);
      expect(run.code, run.stderr).toBe(1);
      expect(JSON.parse(run.stdout).safe_to_use).toBe(false);
    });

    it("scans a derived metric with its inputs' tests (revenue_per_order inherits gross_revenue's defect)", async () => {
      expect(EXPECTED_STATUS.revenue_per_order).toBe("unreliable");
      const run = await runCli(["scan", "--metric", "revenue_per_order", "--json"], env);
      expect(run.code, run.stderr).toBe(1);
      const [verdict] = JSON.parse(run.stdout).metrics;
      expect(verdict).toMatchObject({ metric_name: "revenue_per_order", status: "unreliable", safe_to_use: false });
      expect(verdict.failing_tests.map((t: { rule: string }) => t.rule)).toEqual(problemsOf("revenue_per_order").map((p) => p.rule));
    });

    it("exits 2 for an unknown metric, before touching the warehouse", async () => {
      const run = await runCli(["scan", "--metric", "no_such_metric"], env);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('unknown metric "no_such_metric"');
    });
  });

  describe("against a running daemon (--server)", () => {
    const server = () => session().d.base;

    it("exits 1 for an unreliable metric and 0 for a healthy one", async () => {
      const unreliable = await runCli(["scan", "--server", server(), "--metric", UNRELIABLE], { METRIC_RELIABILITY_API_KEY: RO_KEY });
      expect(unreliable.code, unreliable.stderr).toBe(1);
      expect(unreliable.stdout).toContain(problemsOf(UNRELIABLE)[0]!.message);
      const healthy = await runCli(["scan", "--server", server(), "--metric", HEALTHY, "--json"], { METRIC_RELIABILITY_API_KEY: RO_KEY });
      expect(healthy.code, healthy.stderr).toBe(0);
      const report = JSON.parse(healthy.stdout);
      expect(report).toMatchObject({
        source: `${server()}/`,
        safe_to_use: true,
        metrics: [{ metric_name: HEALTHY, status: "healthy", safe_to_use: true }],
      });
    });

    it("checks every metric without --metric (the demo has unreliable ones: exit 1)", async () => {
      const run = await runCli(["scan", "--server", server(), "--json"], { METRIC_RELIABILITY_API_KEY: RO_KEY });
      expect(run.code, run.stderr).toBe(1);
      const report = JSON.parse(run.stdout);
      expect(Object.fromEntries(report.metrics.map((m: { metric_name: string; status: string }) => [m.metric_name, m.status]))).toEqual(
        EXPECTED_STATUS,
      );
    });

    it("--fresh has the daemon scan first (a read-write key), then answers from that scan", async () => {
      const before = await session().d.get(`/v1/reliability/status/${HEALTHY}`);
      const run = await runCli(["scan", "--server", server(), "--metric", HEALTHY, "--fresh", "--json"], {
        METRIC_RELIABILITY_API_KEY: RW_KEY,
      });
      expect(run.code, run.stderr).toBe(0);
      const [verdict] = JSON.parse(run.stdout).metrics;
      expect(Date.parse(verdict.checked_at)).toBeGreaterThan(Date.parse(before.checked_at));
      const readOnly = await runCli(["scan", "--server", server(), "--fresh"], { METRIC_RELIABILITY_API_KEY: RO_KEY });
      expect(readOnly.code).toBe(2);
      expect(readOnly.stderr).toContain("403");
    });

    it("exits 2 for an unknown metric, a wrong key, a missing key and an unreachable server", async () => {
      const unknown = await runCli(["scan", "--server", server(), "--metric", "no_such_metric"], { METRIC_RELIABILITY_API_KEY: RO_KEY });
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('metric "no_such_metric" not found');
      const wrongKey = await runCli(["scan", "--server", server(), "--metric", HEALTHY], {
        METRIC_RELIABILITY_API_KEY: "not-a-valid-key-0123456789",
      });
      expect(wrongKey.code).toBe(2);
      expect(wrongKey.stderr).toContain("401");
      const noKey = await runCli(["scan", "--server", server(), "--metric", HEALTHY]);
      expect(noKey.code).toBe(2);
      expect(noKey.stderr).toContain("METRIC_RELIABILITY_API_KEY");
      const port = await closedPort();
      const down = await runCli(["scan", "--server", `http://127.0.0.1:${port}`, "--metric", HEALTHY], {
        METRIC_RELIABILITY_API_KEY: RO_KEY,
      });
      expect(down.code).toBe(2);
      expect(down.stderr).toContain(`cannot reach http://127.0.0.1:${port}: ECONNREFUSED`);
    });
  });
});

describe("metric-reliability scan, no verdict", () => {
  it("exits 2 with one line when the configured warehouse cannot be reached", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "mr-cli-scan-"));
    try {
      const port = await closedPort();
      const run = await runCli(["scan", "--metric", HEALTHY], { CLICKHOUSE_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir });
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).toMatch(/^metric-reliability: scan failed: warehouse "default" unavailable/);
      expect(run.stdout).toBe("");
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("exits 2 on a usage error and on a malformed --server", async () => {
    expect((await runCli(["scan", "--metric"])).code).toBe(2);
    const bad = await runCli(["scan", "--server", "ftp://example"], { METRIC_RELIABILITY_API_KEY: RO_KEY });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--server: expected an http(s) URL");
  });
});
