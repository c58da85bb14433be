// npm run bench:scan [-- --wide] [--reps N] ...: see bench-args.ts and docs/benchmarks.md.
// Creates its own database (mr_bench_<pid>_<time>) in the server at CLICKHOUSE_URL or in an
// embedded chdb, generates a catalogue as YAML in a temp dir, measures, and drops everything.
// Progress goes to stderr; the report to stdout. Exit code 1 when a check of the run fails
// (methods disagree, or the query count differs from the number of tables).
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { quoteIdentifier } from "../src/sql/identifiers.js";
import { parseBenchArgs, USAGE, UsageError } from "./bench-args.js";
import { openBenchWarehouse, progress } from "./bench-warehouse.js";
import { runStandard } from "./standard-mode.js";
import { runWide } from "./wide-mode.js";

/** Set on SIGINT/SIGTERM: the queries still in flight then fail as their tables vanish. */
let interrupted = false;

async function main(): Promise<number> {
  const options = parseBenchArgs(process.argv.slice(2), process.env);
  if (options === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const db = `mr_bench_${process.pid}_${Date.now().toString(36)}`;
  const workDir = await mkdtemp(path.join(os.tmpdir(), "mr-bench-"));
  const bench = await openBenchWarehouse(options.timeoutSeconds);
  progress(`warehouse: ${bench.label}, ClickHouse ${await bench.version()}; mode ${options.wide ? "wide" : "standard"}`);

  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    if (options.keep) progress(`keeping database ${db} (--keep)`);
    else {
      progress(`dropping database ${db}`);
      await bench
        .exec(`DROP DATABASE IF EXISTS ${quoteIdentifier(db)}`)
        .catch((error: unknown) => progress(`could not drop ${db}: ${(error as Error).message}`));
    }
    await bench.close().catch(() => {});
    await rm(workDir, { recursive: true, force: true });
  };
  // Ctrl-C mid-run still drops the database.
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted = true;
    progress(`${signal}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  try {
    return (options.wide ? await runWide(bench, options, db, workDir) : await runStandard(bench, options, db, workDir)) ? 0 : 1;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (interrupted) return; // cleanup() exits with 130
    const text = error instanceof UsageError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`bench:scan failed: ${text}\n`);
    process.exitCode = 1;
  },
);
