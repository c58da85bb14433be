// `metric-reliability serve` is the daemon, as a process: it starts on the embedded demo, logs
// durations in milliseconds' precision, stops cleanly on SIGTERM, and a busy PORT stops it
// before the store is touched, with one line and no stack trace; so does a catalogue too big for
// the heap it was given.
import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const temps: string[] = [];
afterEach(async () => {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true });
});
const tempDir = async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mr-cli-serve-"));
  temps.push(dir);
  return dir;
};

async function listeningServer(): Promise<net.Server> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

describe("metric-reliability serve", () => {
  it("exits 1 with one line when PORT is busy, before setting up the store", async () => {
    const busy = await listeningServer();
    const port = (busy.address() as net.AddressInfo).port;
    const dataDir = await tempDir();
    try {
      const run = await runCli(["serve"], { PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "info" }, 60_000);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`start-up failed: PORT ${port}: 127.0.0.1:${port} is already in use (another process listens on it)\n`);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      // Nothing was prepared: no embedded store, no generated key, no catalogue compiled.
      expect(await readdir(dataDir)).toEqual([]);
      expect(run.stdout).not.toContain("catalogue compiled");
    } finally {
      busy.close();
    }
  });

  it("exits 1 with one line saying what memory to give when the catalogue leaves a scan no room, before touching the store", async () => {
    // 3,000 metrics keep about 13 MB of heap; their scan needs about 65 MB, over 90 % of a 64 MB
    // old space. Started anyway, this catalogue ran out of memory after its first scan.
    const metricsDir = await tempDir();
    for (let t = 0; t < 30; t++) {
      const metrics = Array.from({ length: 100 }, (_, m) =>
        [
          `  - name: t${t}_m${m}`,
          `    datasource: default`,
          `    table: shop.t${t}`,
          `    timestamp: ts`,
          `    filter: "status = 'ok${m % 5}'"`,
          `    measures: [{ alias: amount, function: Sum, column: amount }, { alias: rows, function: Count }]`,
          `    dimensions: [{ name: country, column: country }, { name: channel, column: ch${m % 7} }]`,
        ].join("\n"),
      );
      await writeFile(path.join(metricsDir, `t${t}.yaml`), `metrics:\n${metrics.join("\n")}\n`);
    }
    const dataDir = await tempDir();
    const free = await listeningServer();
    const port = (free.address() as net.AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    const env = { PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, METRICS_DIR: metricsDir, LOG_LEVEL: "info" };
    const run = await runCli(["serve"], { ...env, NODE_OPTIONS: "--max-old-space-size=64" }, 60_000);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^start-up failed: the catalogue \(3,000 metrics, 39,000 tests\) keeps \d+ MB of heap and a scan would need about \d+ MB, more than 90 % of the 64 MB old space this process may use: it would run out of memory scanning\. Give it more, e\.g\. NODE_OPTIONS="--max-old-space-size=(\d+)" with a memory limit of about \d+ Mi \(Helm: config\.nodeOptions and resources\.limits\.memory\), or split the catalogue between daemons; MEMORY_CHECK=false starts it anyway\n$/,
    );
    // Refused before the store, the key and the warehouses: nothing written.
    expect(await readdir(dataDir)).toEqual([]);
    expect(run.stdout).toContain('"msg":"catalogue compiled"');
  });

  it("serves the demo, logs rounded durations, and exits 0 on SIGTERM", async () => {
    const free = await listeningServer();
    const port = (free.address() as net.AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    const dataDir = await tempDir();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "info",
      SCAN_SCHEDULE: "off",
    };
    for (const key of ["CLICKHOUSE_URL", "DATABASE_URL", "API_KEYS", "API_READONLY_KEYS", "METRICS_DIR"]) delete env[key];
    const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "src", "cli", "main.ts"), "serve"], { cwd: ROOT, env });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const deadline = Date.now() + 90_000;
      while (!stdout.includes('"msg":"scan succeeded"')) {
        if (Date.now() > deadline) throw new Error(`no start-up scan:\n${stdout}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toEqual({ status: "ok" });
      expect((await fetch(`http://127.0.0.1:${port}/v1/openapi.json`)).status).toBe(200);
      const scanLine = stdout.split("\n").find((l) => l.includes('"msg":"scan succeeded"'))!;
      // { total, warehouse, evaluate, store }: each to the millisecond, no float noise.
      const seconds = Object.values(JSON.parse(scanLine).seconds as Record<string, number>);
      expect(seconds.length).toBeGreaterThan(0);
      for (const value of seconds) expect(Math.round(value * 1000) / 1000).toBe(value);
      expect(Math.max(...seconds)).toBeGreaterThan(0);
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
