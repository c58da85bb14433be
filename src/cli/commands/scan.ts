// `scan`: the circuit breaker. Exit 0 when every selected metric is safe_to_use, 1 when one is
// not, 2 when there is no verdict (usage error, unknown metric, unreachable server, failed scan).
import { CliError, EXIT_FAILED, EXIT_OK } from "../cli-error.js";
import { loadCatalogue, selectMetrics } from "../catalogue.js";
import { scanLocally } from "../local-scan.js";
import type { CliContext } from "../context.js";
import { scanRemotely } from "../remote-scan.js";
import { progressLine, renderScanReport, styleFor } from "../render.js";
import { scanReport, type MetricVerdict } from "../verdict.js";

export interface ScanOptions {
  metric: string[];
  json?: boolean;
  server?: string;
  fresh?: boolean;
  timeout: string;
}

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** SIGINT cancels the warehouse queries; a second one leaves at once. */
function interruptible(): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  return { signal: controller.signal, release: () => process.off("SIGINT", onSigint) };
}

function serverUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`--server: expected an http(s) URL, got "${value}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new CliError(`--server: expected an http(s) URL, got "${value}"`);
  return url.href;
}

export async function scanCommand(ctx: CliContext, options: ScanOptions): Promise<number> {
  const progress = progressLine(ctx.stderr);
  const interrupt = interruptible();
  let verdicts: MetricVerdict[];
  let source: string;
  try {
    if (options.server) {
      source = serverUrl(options.server);
      const apiKey = process.env.METRIC_RELIABILITY_API_KEY;
      if (!apiKey) throw new CliError("--server needs the API key in METRIC_RELIABILITY_API_KEY");
      const timeout = Number(options.timeout);
      if (!Number.isFinite(timeout) || timeout <= 0)
        throw new CliError(`--timeout: expected a number of seconds, got "${options.timeout}"`);
      progress.update(options.fresh ? `scanning on ${source} ...` : `asking ${source} ...`);
      verdicts = await scanRemotely(
        { server: source, apiKey, timeoutMs: timeout * 1000, signal: interrupt.signal },
        options.metric,
        options.fresh ?? false,
      );
    } else {
      if (options.fresh) throw new CliError("--fresh applies to --server only (a scan here is always fresh)");
      source = "warehouse";
      const snapshot = selectMetrics(await loadCatalogue(ctx.config.METRICS_DIR), options.metric);
      verdicts = await scanLocally(ctx.config, snapshot, ctx.logger, {
        signal: interrupt.signal,
        onProgress: (p) =>
          progress.update(
            `scanning ${count(snapshot.metrics.length, "metric")} over ${count(p.tables, "table")}: ${count(p.queriesDone, "query", "queries")} done`,
          ),
      });
    }
  } finally {
    progress.done();
    interrupt.release();
  }
  const report = scanReport(source, verdicts);
  ctx.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderScanReport(report, styleFor(ctx.stdout)));
  return report.safe_to_use ? EXIT_OK : EXIT_FAILED;
}
