// autocannon against the daemon and against a bare Express server returning the same bodies, in
// the same run, so the ratio compares like with like on this machine. API paths carry the key;
// pages (HTML) carry a session cookie from the login form, as a browser would.
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import autocannon from "autocannon";
import { freePort } from "../../test/helpers/free-port.js";
import type { DaemonProcess } from "./daemon-process.js";

export interface LoadResult {
  path: string;
  /** an HTML page (session cookie) rather than an API path */
  page: boolean;
  connections: number;
  daemon: { rps: number; p99: number; errors: number; non2xx: number; bytes: number };
  bare: { rps: number; p99: number; errors: number; non2xx: number; bytes: number };
}

async function cannon(url: string, headers: Record<string, string>, seconds: number, connections: number) {
  // A short warm-up first, for both servers alike: the first second's JIT compilation would
  // otherwise set the p99 of a 20-second run.
  await autocannon({ url, headers, duration: 2, connections });
  const result = await autocannon({ url, headers, duration: seconds, connections });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    bytes: result.throughput.average,
  };
}

/** Logs in through the login form and returns the session's Cookie header value. */
export async function pageSession(daemon: DaemonProcess): Promise<string> {
  const res = await fetch(`${daemon.base}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ key: daemon.key, next: "/" }),
    redirect: "manual",
  });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("mr_session="));
  if (res.status !== 303 || !cookie) throw new Error(`login: ${res.status}`);
  return cookie.split(";")[0]!;
}

/** `pages` are HTML paths, asked with the session cookie; the other paths with the key. */
export async function loadTest(
  daemon: DaemonProcess,
  paths: string[],
  options: {
    root: string;
    workDir: string;
    seconds: number;
    connections: number;
    progress: (line: string) => void;
    pages?: string[];
    cookie?: string;
    /** paths loaded at these connection counts instead of `connections` alone */
    connectionsFor?: Record<string, number[]>;
  },
): Promise<LoadResult[]> {
  const pages = new Set(options.pages ?? []);
  const headersFor = (p: string): Record<string, string> =>
    pages.has(p) ? { Cookie: options.cookie ?? "" } : { Authorization: `Bearer ${daemon.key}` };
  const bodies: Record<string, { type: "json" | "text" | "html"; body: unknown }> = {};
  for (const p of [...paths, ...pages]) {
    const res = await fetch(`${daemon.base}${p}`, { headers: headersFor(p), redirect: "manual" });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET ${p}: ${res.status} ${text.slice(0, 200)}`);
    bodies[p] = pages.has(p)
      ? { type: "html", body: text }
      : p === "/metrics"
        ? { type: "text", body: text }
        : { type: "json", body: JSON.parse(text) };
  }
  const file = path.join(options.workDir, "bare-bodies.json");
  await writeFile(file, JSON.stringify(bodies));
  const port = await freePort();
  const bare = spawn(
    process.execPath,
    ["--import", "tsx", path.join(options.root, "bench", "scale", "bare-server.ts"), file, String(port)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    bare.stdout.once("data", () => resolve());
    bare.once("exit", (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  const results: LoadResult[] = [];
  try {
    for (const p of [...paths, ...pages]) {
      for (const connections of options.connectionsFor?.[p] ?? [options.connections]) {
        options.progress(`load: ${p} on the daemon (${options.seconds} s, ${connections} connections)`);
        const onDaemon = await cannon(`${daemon.base}${p}`, headersFor(p), options.seconds, connections);
        options.progress(`load: ${p} on the bare Express server`);
        const onBare = await cannon(`http://127.0.0.1:${port}${p}`, {}, options.seconds, connections);
        results.push({ path: p, page: pages.has(p), connections, daemon: onDaemon, bare: onBare });
      }
    }
  } finally {
    bare.kill("SIGTERM");
  }
  return results;
}
