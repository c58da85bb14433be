// The documented command lines, run exactly as written, as a shell runs them in a checkout:
// `npx metric-reliability ...` (docs/cli.md) and every line of the README's `sh` blocks (`npm start`
// and the first API call here; `npm test` is what .ci/run runs), each as a child process.
import { execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../helpers/free-port.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const README = readFileSync(path.join(ROOT, "README.md"), "utf8");
const CLI_PAGE = readFileSync(path.join(ROOT, "docs", "cli.md"), "utf8");
const run = promisify(execFile);

/** The lines of a page's `sh` blocks that start with `prefix`, comments removed. */
const shLines = (page: string, prefix = "") =>
  [...page.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((block) => block[1]!.split("\n"))
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "" && line.startsWith(prefix));

/** The README's first API call: run after `npm start` from a folder whose `.data` is the daemon's. */
const README_API_CALL = ["KEY=$(cat .data/api-key)", 'curl -s -H "Authorization: Bearer $KEY" localhost:8080/v1/reliability/status'];

describe("the README's sh blocks", () => {
  it("hold only commands this suite or .ci/run runs", () => {
    expect(shLines(README)).toEqual(["npm ci && npm start", "npm test", ...README_API_CALL]);
    // `npm test` as a newcomer runs it: .ci/run runs it once more without any server variable.
    expect(readFileSync(path.join(ROOT, ".ci", "run"), "utf8")).toMatch(/^\s*(env .*)?npm test\b/m);
  });
});

/** The caller's environment without what would change the daemon's or the CLI's behaviour. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !/^(CLICKHOUSE_|DATABASE_URL$|METRICS_DIR$|DATA_DIR$|API_|METRIC_RELIABILITY_|SCAN_|PORT$|HOST$|NODE_OPTIONS$|MALLOC_ARENA_MAX$)/.test(
          k,
        ),
    ),
  );
  return { ...env, NO_COLOR: "1", ...extra };
}

const temps: string[] = [];
afterEach(async () => {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("the CLI lines of docs/cli.md", () => {
  const expected: Record<string, RegExp> = {
    "npx metric-reliability --help": /^Usage: metric-reliability \[options\] \[command\]/,
    "npx metric-reliability validate": /demo\/metrics: \d+ metrics, \d+ inferred tests, valid\n$/,
  };

  it("shows the lines this test runs", () => {
    expect(shLines(CLI_PAGE, "npx metric-reliability")).toEqual(Object.keys(expected));
  });

  it.each(Object.entries(expected))("%s works in a checkout, without a build", async (line, output) => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "mr-readme-cli-"));
    temps.push(dataDir);
    const { stdout } = await run("sh", ["-c", line], { cwd: ROOT, env: cleanEnv({ DATA_DIR: dataDir }), timeout: 120_000 });
    expect(stdout).toMatch(output);
  });
});

/** The processes below `pid`, from /proc. */
async function descendants(pid: number): Promise<number[]> {
  const { stdout } = await run("ps", ["-e", "-o", "pid=,ppid="]);
  const children = new Map<number, number[]>();
  for (const line of stdout.trim().split("\n")) {
    const [child, parent] = line.trim().split(/\s+/).map(Number) as [number, number];
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length > 0;) {
    const next = children.get(queue.shift()!) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

describe("the README's start command", () => {
  it.runIf(process.platform === "linux")("npm start runs the compiled daemon with the image's memory settings", async () => {
    expect(README).toContain("npm ci && npm start");
    const port = await freePort();
    const home = await mkdtemp(path.join(os.tmpdir(), "mr-readme-start-"));
    temps.push(home);
    const dataDir = path.join(home, ".data");
    const env = cleanEnv({ PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, SCAN_SCHEDULE: "off", LOG_LEVEL: "info" });
    // Its own process group, so that the test can signal npm and everything below it at once.
    const child = spawn("sh", ["-c", "npm start"], { cwd: ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      // The first start may compile src/ first.
      const deadline = Date.now() + 240_000;
      for (;;) {
        const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ready) break;
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not get ready:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const daemons = [];
      for (const pid of await descendants(child.pid!)) {
        const argv = (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).split("\0").filter(Boolean);
        if (argv.at(-1) === "dist/main.js") daemons.push({ pid, argv });
      }
      expect(daemons.map((d) => path.basename(d.argv[0]!))).toEqual(["node"]);
      // The README's first API call, from a folder whose .data is this daemon's, on its port.
      const call = README_API_CALL.join("\n").replace("localhost:8080", `127.0.0.1:${port}`);
      const { stdout } = await run("sh", ["-c", call], { cwd: home, timeout: 30_000 });
      expect(JSON.parse(stdout)).toMatchObject({ summary: { total: expect.any(Number) }, metrics: expect.any(Array) });
      // The compiled daemon serves the pages' stylesheet, which tsc does not emit (scripts/copy-assets.mjs).
      const login = await (await fetch(`http://127.0.0.1:${port}/login`)).text();
      const stylesheet = /href="(\/assets\/style\.[0-9a-f]{12}\.css)"/.exec(login)?.[1];
      expect(stylesheet).toBeDefined();
      const css = await fetch(`http://127.0.0.1:${port}${stylesheet}`);
      expect([css.status, css.headers.get("content-type")]).toEqual([200, "text/css; charset=utf-8"]);
      const environ = (await readFile(`/proc/${daemons[0]!.pid}/environ`, "utf8")).split("\0");
      expect(environ).toContain("MALLOC_ARENA_MAX=2");
      const nodeOptions = environ.find((v) => v.startsWith("NODE_OPTIONS="));
      expect(nodeOptions?.split("=").slice(1).join("=").split(" ").sort()).toEqual(["--max-old-space-size=288", "--max-semi-space-size=4"]);
      // As a terminal's Ctrl-C or a service manager would: the whole group. npm and its shell die
      // of the signal; the daemon shuts down cleanly (and its embedded database with it).
      process.kill(-child.pid!, "SIGTERM");
      await exited;
      const alive = (pid: number) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      for (const stop = Date.now() + 60_000; alive(daemons[0]!.pid) && Date.now() < stop;) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(alive(daemons[0]!.pid)).toBe(false);
      expect(output).toContain('"msg":"stopped"');
    } finally {
      try {
        process.kill(-child.pid!, "SIGKILL"); // whatever is left of the group after a failure
      } catch {
        // the group is gone
      }
    }
  });
});
