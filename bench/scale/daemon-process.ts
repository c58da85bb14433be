// The daemon under test, as a production process (`node dist/main.js`), with its JSON log lines,
// its peak RSS (VmHWM) and an event-loop lag sampler reading its own /metrics.
import { spawn, type ChildProcess } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
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

/**
 * How the daemon is started: `node dist/main.js` with the image's memory settings set here, or
 * the README's `npm start` with only what that command sets itself (the daemon is then the
 * `node dist/main.js` below npm and its shell; its figures are that process's).
 */
export type DaemonCommand = "node" | "npm-start";

export async function startDaemonProcess(
  root: string,
  env: Record<string, string>,
  command: DaemonCommand = "node",
): Promise<DaemonProcess> {
  const port = await freePort();
  const key = "bench-scale-key-0123456789abcdef";
  const logs: Record<string, unknown>[] = [];
  const started = performance.now();
  const { NODE_OPTIONS: _nodeOptions, MALLOC_ARENA_MAX: _arenas, ...inherited } = process.env;
  const daemonEnv = {
    ...inherited,
    // The image's memory settings (Dockerfile, chart values), unless BENCH_NODE_OPTIONS says otherwise.
    ...(command === "node"
      ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS ?? "--max-old-space-size=288 --max-semi-space-size=4", MALLOC_ARENA_MAX: "2" }
      : {}),
    ...env,
    PORT: String(port),
    HOST: "127.0.0.1",
    API_KEYS: key,
    SCAN_SCHEDULE: "off",
    SCAN_ON_START: "false",
    LOG_LEVEL: "info",
  };
  const child: ChildProcess =
    command === "node"
      ? // BENCH_NODE_ARGS: node flags NODE_OPTIONS refuses, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" (written at stop)
        spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []), path.join(root, "dist", "main.js")], {
          cwd: root,
          env: daemonEnv,
          stdio: ["ignore", "pipe", "pipe"],
        })
      : // its own process group: stop() signals npm, its shell and the daemon at once, as Ctrl-C does
        spawn("npm", ["start"], { cwd: root, env: daemonEnv, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let buffered = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      // Only the lines the report reads: parsing every request line would slow the pipe down,
      // and a slow reader makes the daemon buffer its log in memory.
      if (
        !line.includes('"msg":"scan succeeded"') &&
        !line.includes('"msg":"catalogue compiled"') &&
        !line.includes('"msg":"read model refreshed"')
      )
        continue;
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
    try {
      const res = await fetch(`${base}${urlPath}`, { method, headers: { Authorization: `Bearer ${key}` } });
      return { status: res.status, text: await res.text() };
    } catch (error) {
      // A dead daemon says why on stderr (a heap limit, a crash): that, not "fetch failed".
      await sleep(200);
      const exit = child.exitCode ?? child.signalCode;
      throw new Error(
        `${method} ${urlPath}: ${(error as Error).message}${exit === null ? "" : `; the daemon exited (${exit}): ${stderr.slice(-3000)}`}`,
        {
          cause: error,
        },
      );
    }
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
  const pid = command === "node" ? child.pid! : await daemonBelow(child.pid!);
  return {
    base,
    key,
    pid,
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
      const status = await readFile(`/proc/${pid}/status`, "utf8");
      const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
      return kb * 1024;
    },
    async stop() {
      if (command === "npm-start") {
        signalGroup(child.pid!, "SIGTERM");
        for (let i = 0; i < 300 && alive(pid); i++) await sleep(100);
        signalGroup(child.pid!, "SIGKILL");
        return;
      }
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([exited, sleep(30_000)]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(leader: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-leader, signal);
  } catch {
    // the group is gone
  }
}

/** The `node dist/main.js` process among the descendants of `ancestor` (npm, then its shell). */
async function daemonBelow(ancestor: number): Promise<number> {
  const parents = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid) parents.set(Number(entry), ppid);
  }
  for (const [pid] of parents) {
    let up = parents.get(pid);
    while (up !== undefined && up !== ancestor) up = parents.get(up);
    if (up !== ancestor) continue;
    const argv = (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).split("\0").filter(Boolean);
    if (argv.at(-1) === "dist/main.js") return pid;
  }
  throw new Error(`no node dist/main.js process below npm start (pid ${ancestor})`);
}

/** Samples nodejs_eventloop_lag_max_seconds (reset by each scrape) every `everyMs`, by phase. */
export function startLagSampler(daemon: DaemonProcess, everyMs = 1_000) {
  const maxByPhase = new Map<string, number>();
  const heapByPhase = new Map<string, number>();
  let phase = "idle";
  let running = true;
  const loop = (async () => {
    while (running) {
      const res = await daemon.get("/metrics").catch(() => null);
      const value = res ? Number(/^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(res.text)?.[1] ?? NaN) : NaN;
      if (Number.isFinite(value)) maxByPhase.set(phase, Math.max(maxByPhase.get(phase) ?? 0, value));
      const heap = res ? Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(res.text)?.[1] ?? NaN) : NaN;
      if (Number.isFinite(heap)) heapByPhase.set(phase, Math.max(heapByPhase.get(phase) ?? 0, heap));
      await sleep(everyMs);
    }
  })();
  return {
    setPhase(next: string) {
      phase = next;
    },
    maxMs: (name: string) => (maxByPhase.get(name) ?? NaN) * 1000,
    /** the largest V8 heap in use the scrapes saw in the phase, MB */
    heapMb: (name: string) => (heapByPhase.get(name) ?? NaN) / 1_048_576,
    async stop() {
      running = false;
      await loop;
    },
  };
}
