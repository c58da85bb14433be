// The real daemon as a process of its own (`node --import tsx src/main.ts`, what `npm start` runs),
// for tests that SIGKILL it or keep it running across an outage of its store. The environment is
// the caller's minus every variable the daemon reads, plus `env`; its JSON log lines are kept.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "./free-port.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const MAIN = path.join(ROOT, "src", "main.ts");
const DAEMON_VARIABLE = /^(CLICKHOUSE_|DATABASE_URL$|METRICS_DIR$|DATA_DIR$|API_|METRIC_RELIABILITY_|LOG_LEVEL$|SCAN_|PORT$|HOST$)/;

export interface Answer {
  status: number;
  /** parsed JSON, or the text when the body is not JSON */
  body: any;
  /** milliseconds from sending to the whole answer */
  ms: number;
}

export interface DaemonProcess {
  pid: number;
  port: number;
  /** JSON log lines, in order */
  logs: Record<string, any>[];
  /** stderr, for a failure's message */
  stderr(): string;
  /** null while it runs */
  exit: { code: number | null; signal: NodeJS.Signals | null } | null;
  request(method: string, urlPath: string, options?: { key?: string; body?: unknown; timeoutMs?: number }): Promise<Answer>;
  /** SIGKILL (no shutdown at all) or SIGTERM; resolves once the process is gone */
  kill(signal: "SIGKILL" | "SIGTERM"): Promise<void>;
}

/** Starts the daemon and resolves once its port answers /healthz (its start-up may still be running). */
export async function spawnDaemon(env: Record<string, string>, options: { startTimeoutMs?: number } = {}): Promise<DaemonProcess> {
  const port = await freePort();
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !DAEMON_VARIABLE.test(k)));
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", MAIN], {
    cwd: ROOT,
    env: { ...base, HOST: "127.0.0.1", PORT: String(port), LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: Record<string, any>[] = [];
  let pending = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        logs.push(JSON.parse(line) as Record<string, any>);
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const daemon: DaemonProcess = {
    pid: child.pid!,
    port,
    logs,
    stderr: () => stderr,
    exit: null,
    async request(method, urlPath, { key, body, timeoutMs = 30_000 } = {}) {
      const started = performance.now();
      const headers: Record<string, string> = {};
      if (key) headers.authorization = `Bearer ${key}`;
      if (body !== undefined) headers["content-type"] = "application/json";
      const res = await fetch(`http://127.0.0.1:${port}${urlPath}`, {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON (the /metrics text)
      }
      return { status: res.status, body: parsed, ms: performance.now() - started };
    },
    async kill(signal) {
      if (daemon.exit) return;
      const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill(signal);
      await gone;
    },
  };
  child.on("exit", (code, signal) => (daemon.exit = { code, signal }));

  const deadline = Date.now() + (options.startTimeoutMs ?? 90_000);
  for (;;) {
    if (daemon.exit) throw new Error(`the daemon exited at start (${JSON.stringify(daemon.exit)}):\n${stderr}\n${JSON.stringify(logs)}`);
    const alive = await daemon.request("GET", "/healthz", { timeoutMs: 1_000 }).catch(() => null);
    if (alive?.status === 200) return daemon;
    if (Date.now() > deadline) {
      await daemon.kill("SIGKILL");
      throw new Error(`the daemon did not open its port in time:\n${stderr}`);
    }
    await sleep(100);
  }
}

/** Polls `probe` until it returns a value (not null/undefined/false), failing after `timeoutMs`. */
export async function eventually<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The value of one sample in a Prometheus exposition text, or undefined. */
export function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
