// Runs the real CLI (src/cli/main.ts) as a child process, as a pipeline would, and collects
// its exit code and output. The environment is the caller's, minus every variable the
// daemon reads, plus `env`: each test says exactly which warehouse and store it means.
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const CLI = path.join(ROOT, "src", "cli", "main.ts");

const DAEMON_VARIABLE = /^(CLICKHOUSE_|DATABASE_URL$|METRICS_DIR$|DATA_DIR$|API_|METRIC_RELIABILITY_|LOG_LEVEL$|SCAN_|PORT$|HOST$)/;

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<CliRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !DAEMON_VARIABLE.test(k)));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", "tsx", CLI, ...args],
      { cwd: ROOT, env: { ...base, NO_COLOR: "1", ...env }, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        if (code === null) reject(new Error(`the CLI did not exit normally: ${error?.message}\n${stderr}`));
        else resolve({ code, stdout, stderr });
      },
    );
  });
}
