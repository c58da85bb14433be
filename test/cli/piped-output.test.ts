// A pipeline reads the CLI through a pipe (`… --json | jq`): the output must arrive whole, not
// cut where the pipe's buffer filled when the process exited. Multi-megabyte output, through `cat`.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const CLI = path.join(ROOT, "src", "cli", "main.ts");
const METRICS = 600;

/** `bash -o pipefail -c "<cli> args | cat"`: stdout of the CLI is a pipe, as in a shell pipeline. */
function throughCat(args: string[], metricsDir: string): Promise<{ stdout: string; code: number }> {
  const quoted = [process.execPath, "--import", "tsx", CLI, ...args].map((a) => `'${a}'`).join(" ");
  return new Promise((resolve, reject) => {
    execFile(
      "bash",
      ["-o", "pipefail", "-c", `${quoted} | cat`],
      { cwd: ROOT, env: { ...process.env, METRICS_DIR: metricsDir, NO_COLOR: "1" }, maxBuffer: 256 * 1024 * 1024, timeout: 120_000 },
      (error, stdout) => {
        if (error && typeof error.code !== "number") reject(new Error(`the CLI did not run: ${error.message}`, { cause: error }));
        else resolve({ stdout, code: error ? Number(error.code) : 0 });
      },
    );
  });
}

describe("CLI output through a pipe", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "mr-cli-pipe-"));
    const metrics = Array.from({ length: METRICS }, (_, i) =>
      [
        `  - name: revenue_${i}`,
        `    table: shop.orders_${i}`,
        "    timestamp: created_at",
        "    primary_key: order_id",
        "    measures: [{ alias: revenue, function: Sum, column: amount }, { alias: buyers, function: CountDistinct, column: buyer_id }]",
        "    dimensions: [{ name: country, column: country }, { name: channel, column: channel }]",
      ].join("\n"),
    );
    await writeFile(path.join(dir, "many.yaml"), `metrics:\n${metrics.join("\n")}\n`);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("tests --json arrives whole: several megabytes that parse", async () => {
    const run = await throughCat(["tests", "--json"], dir);
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBeGreaterThan(2 * 1024 * 1024);
    const body = JSON.parse(run.stdout) as { count: number; tests: { metric: string }[] };
    expect(body.tests).toHaveLength(body.count);
    expect(new Set(body.tests.map((t) => t.metric)).size).toBe(METRICS);
  }, 180_000);
});
