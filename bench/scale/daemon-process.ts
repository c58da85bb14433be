// The daemon under test, as a production process (`node dist/main.js`), with its JSON log lines,
// its peak RSS (VmHWM) and an event-loop lag sampler reading its own /metrics.
import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "../../test/helpers/free-port.js";

export interface DaemonProcess {
  base: string;
  key: string;
  pid: number;
  logs: Record<string, unknown>[];
  /** ms from spawn to the first 200 from /readyz */
  startupMs: number;
  get(urlPath: string): Promise<{ status: number; text: string }>;
  post(urlPath: string): Promise<{ status: number; text: string }>;
  /** the first log line matching, waiting up to 5 s for it (stdout is a pipe: lines lag behind responses) */
  waitForLog(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown> | undefined>;
  /** VmHWM: the highest resident set size so far, in bytes */
  peakRss(): Promise<number>;
  stop(): Promise<void>;
}

export async function startDaemonProcess(root: string, env: Record<string, string>): Promise<DaemonProcess> {
  const port = await freePort();
  const key = "bench-scale-key-0123456789abcdef";
  const logs: Record<string, unknown>[] = [];
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [path.join(root, "dist", "main.js")], {
    cwd: root,
    // The image's memory settings (Dockerfile, chart values), unless BENCH_NODE_OPTIONS says otherwise.
    env: {
      ...process.env,
      NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS ?? "--max-old-space-size=256 --max-semi-space-size=8",
      MALLOC_ARENA_MAX: "2",
      ...env,
      PORT: String(port),
      HOST: "127.0.0.1",
      API_KEYS: key,
      SCAN_SCHEDULE: "off",
      SCAN_ON_START: "false",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let buffered = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      // Only the lines the report reads: parsing every request line would slow the pipe down,
      // and a slow reader makes the daemon buffer its log in memory.
      if (!line.includes('"msg":"scan succeeded"') && !line.includes('"msg":"catalogue compiled"')) continue;
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log line
      }
    }
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const base = `http://127.0.0.1:${port}`;
  const call = async (method: string, urlPath: string) => {
    const res = await fetch(`${base}${urlPath}`, { method, headers: { Authorization: `Bearer ${key}` } });
    return { status: res.status, text: await res.text() };
  };
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the daemon exited with ${child.exitCode}: ${stderr.slice(-2000)}`);
    const ready = await fetch(`${base}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    await sleep(50);
  }
  const startupMs = performance.now() - started;
  return {
    base,
    key,
    pid: child.pid!,
    logs,
    startupMs,
    get: (urlPath) => call("GET", urlPath),
    async waitForLog(match) {
      for (let i = 0; i < 100; i++) {
        const line = logs.find(match);
        if (line) return line;
        await sleep(50);
      }
      return undefined;
    },
    post: (urlPath) => call("POST", urlPath),
    async peakRss() {
      const status = await readFile(`/proc/${child.pid}/status`, "utf8");
      const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
      return kb * 1024;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([exited, sleep(30_000)]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}

/** Samples nodejs_eventloop_lag_max_seconds (reset by each scrape) every `everyMs`, by phase. */
export function startLagSampler(daemon: DaemonProcess, everyMs = 1_000) {
  const maxByPhase = new Map<string, number>();
  let phase = "idle";
  let running = true;
  const loop = (async () => {
    while (running) {
      const res = await daemon.get("/metrics").catch(() => null);
      const value = res ? Number(/^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(res.text)?.[1] ?? NaN) : NaN;
      if (Number.isFinite(value)) maxByPhase.set(phase, Math.max(maxByPhase.get(phase) ?? 0, value));
      await sleep(everyMs);
    }
  })();
  return {
    setPhase(next: string) {
      phase = next;
    },
    maxMs: (name: string) => (maxByPhase.get(name) ?? NaN) * 1000,
    async stop() {
      running = false;
      await loop;
    },
  };
}
