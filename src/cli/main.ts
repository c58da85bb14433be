#!/usr/bin/env node
// `metric-reliability`: the daemon (serve) and one-shot commands for pipelines. Another thin
// transport over the same stages and services as REST and tRPC: nothing here decides a status.
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { Command, CommanderError, Option } from "commander";
import { CliError, EXIT_USAGE } from "./cli-error.js";
import { context } from "./context.js";
import { migrateCommand } from "./commands/migrate.js";
import { scanCommand } from "./commands/scan.js";
import { testsCommand } from "./commands/tests.js";
import { validateCommand } from "./commands/validate.js";

const collect = (value: string, previous: string[]) => [...previous, value];

export function buildProgram(run: (exitCode: number) => void): Command {
  const program = new Command("metric-reliability")
    .description("Infers data tests from metric definitions, runs them on ClickHouse and says which metrics are safe to use.")
    .option("--metrics-dir <dir>", "catalogue folder (default: METRICS_DIR, else the bundled demo)")
    .exitOverride()
    .showHelpAfterError("(run with --help for usage)");
  const globals = () => program.opts<{ metricsDir?: string }>();

  program
    .command("serve")
    .description("run the daemon: REST /v1, tRPC, /metrics and the scan schedule (configured by environment variables)")
    .action(async () => {
      if (globals().metricsDir) process.env.METRICS_DIR = globals().metricsDir;
      const { serve } = await import("../main.js");
      await serve();
    });

  program
    .command("validate")
    .description("compile the catalogue without any server; exit 1 listing the errors when a definition is invalid")
    .option("--json", "print { metrics, tests, errors } as JSON")
    .action(async (options: { json?: boolean }) => run(await validateCommand(context(globals()), options)));

  program
    .command("tests")
    .description("list the tests inferred from the catalogue (never queries the warehouse)")
    .option("--metric <name>", "only this metric (repeatable)", collect, [])
    .option("--json", "print { tests, count } as GET /v1/validation/tests does")
    .action(async (options: { metric: string[]; json?: boolean }) => run(await testsCommand(context(globals()), options)));

  program
    .command("scan")
    .description(
      "is it safe to use? Scans the configured warehouse (or asks a running daemon with --server).\n" +
        "Exit 0: every selected metric is safe_to_use; 1: one is not; 2: usage error, unknown metric, or no answer.",
    )
    .option("--metric <name>", "check this metric (repeatable; default: every metric)", collect, [])
    .option("--json", "print the verdict as JSON")
    .option("--server <url>", "ask the daemon at this URL instead of scanning here (key: METRIC_RELIABILITY_API_KEY)")
    .option("--fresh", "with --server: make the daemon run a scan first and answer from it (needs a read-write key)")
    .addOption(new Option("--timeout <seconds>", "with --server: give up on a request after this long").default("120"))
    .action(async (options: { metric: string[]; json?: boolean; server?: string; fresh?: boolean; timeout: string }) =>
      run(await scanCommand(context(globals()), options)),
    );

  program
    .command("migrate")
    .description("apply pending database migrations to DATABASE_URL (or the embedded store in DATA_DIR), then exit")
    .action(async () => run(await migrateCommand(context(globals()))));

  return program;
}

/** Resolves once everything written to `stream` so far has been handed to the system (or it failed). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) return resolve();
    // A reader that went away (`| head`) is EPIPE here: nothing left to wait for, and no crash.
    stream.once("error", () => resolve());
    stream.write("", () => resolve());
  });
}

export async function runCli(argv: string[]): Promise<void> {
  const finish = (exitCode: number) => {
    // Drivers (pg pools, the embedded engine) may keep handles open; a command ends here, but
    // only once its output is out: on a pipe stdout is asynchronous, and process.exit before it
    // drains cuts the output at the pipe's buffer (64 KB).
    process.exitCode = exitCode;
    void flushed(process.stdout)
      .then(() => flushed(process.stderr))
      .finally(() => process.exit(exitCode));
  };
  const program = buildProgram(finish);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with exitCode 0; every other parse error is a usage error.
      finish(error.exitCode === 0 ? 0 : EXIT_USAGE);
    } else if (error instanceof CliError) {
      process.stderr.write(`metric-reliability: ${error.message}\n`);
      finish(error.exitCode);
    } else {
      process.stderr.write(`metric-reliability: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
      finish(EXIT_USAGE);
    }
  }
}

// Run when executed, not when imported (tests build the program themselves). npm's bin link is a
// symlink, so compare real paths.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  void runCli(process.argv);
}
