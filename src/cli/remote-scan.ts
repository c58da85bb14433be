// `scan --server URL`: asks a running daemon over its REST API (the key comes from
// METRIC_RELIABILITY_API_KEY). Every answer but a verdict (401, 404, 503, a refused
// connection, a timeout) is exit 2: the circuit breaker must not mistake a fault for data.
// With --fresh every read asks for at least the scan it started (X-Min-Scan): behind a load
// balancer another replica may answer, and it answers that scan's view or 503, never an older one.
import { setTimeout as sleep } from "node:timers/promises";
import type { MetricStatusView, ScanTriggerView, StatusEntryView } from "../services/views.js";
import { CliError } from "./cli-error.js";
import type { MetricVerdict } from "./verdict.js";

export interface RemoteOptions {
  server: string;
  apiKey: string;
  timeoutMs: number;
  signal: AbortSignal;
}

interface ListingPage {
  metrics: StatusEntryView[];
  next_cursor?: string | null;
}

/** Longest wait a Retry-After may ask for between two reads of a scan's view. */
const MAX_RETRY_WAIT_MS = 5_000;

/**
 * A GET for at least scan `minScan`: a replica that has not applied it yet answers 503 with
 * Retry-After; asked again (any replica) until it is, within the timeout.
 */
async function read<T>(options: RemoteOptions, path: string, what: string, minScan: string | null): Promise<T> {
  if (!minScan) return call<T>(options, "GET", path, what);
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    try {
      return await call<T>(options, "GET", path, what, { "x-min-scan": minScan });
    } catch (error) {
      const retryAfter = (error as CliError & { retryAfterMs?: number }).retryAfterMs;
      if (retryAfter === undefined || Date.now() + retryAfter > deadline || options.signal.aborted) throw error;
      await sleep(retryAfter);
    }
  }
}

async function call<T>(
  options: RemoteOptions,
  method: "GET" | "POST",
  path: string,
  what: string,
  headers: Record<string, string> = {},
): Promise<T> {
  const url = new URL(path, options.server.endsWith("/") ? options.server : `${options.server}/`);
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${options.apiKey}`, accept: "application/json", ...headers },
      signal: AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      (error as Error).name === "TimeoutError"
        ? `no answer within ${options.timeoutMs / 1000}s`
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    throw new CliError(`cannot reach ${url.origin}: ${reason}`);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const message = (body as { error?: { message?: string } } | undefined)?.error?.message ?? text.slice(0, 200);
    if (response.status === 404) throw new CliError(`${what}: ${message}`);
    const failure: CliError & { retryAfterMs?: number } = new CliError(`${what}: server answered ${response.status}: ${message}`);
    const retryAfter = Number(response.headers.get("retry-after"));
    if (response.status === 503 && Number.isFinite(retryAfter) && retryAfter >= 0 && response.headers.has("retry-after"))
      failure.retryAfterMs = Math.min(retryAfter * 1000, MAX_RETRY_WAIT_MS);
    throw failure;
  }
  if (body === undefined) throw new CliError(`${what}: the server did not answer JSON`);
  return body as T;
}

const verdictOf = (v: MetricStatusView): MetricVerdict => ({
  metric_name: v.metric_name,
  status: v.status,
  safe_to_use: v.safe_to_use,
  checked_at: v.checked_at,
  since: v.since,
  tests: v.tests,
  failing_tests: v.failing_tests,
});

/** With `fresh`, the daemon runs a scan first and the verdict is that scan's. */
export async function scanRemotely(options: RemoteOptions, names: readonly string[], fresh: boolean): Promise<MetricVerdict[]> {
  let minScan: string | null = null;
  if (fresh) {
    const scan = await call<ScanTriggerView>(options, "POST", "v1/reliability/scan?wait=true", "scan");
    if (scan.status !== "succeeded") throw new CliError(`scan ${scan.scan_id} ${scan.status}: ${scan.error ?? "no error given"}`);
    minScan = scan.scan_id;
  }
  if (names.length > 0) {
    const views = [];
    for (const name of names) {
      views.push(await read<MetricStatusView>(options, `v1/reliability/status/${encodeURIComponent(name)}`, `metric "${name}"`, minScan));
    }
    return views.map(verdictOf);
  }
  // Every metric: the listing, page by page once the server paginates it.
  const entries: StatusEntryView[] = [];
  let cursor: string | null | undefined = null;
  do {
    const query: string = `?limit=10000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page: ListingPage = await read<ListingPage>(options, `v1/reliability/status${query}`, "status listing", minScan);
    entries.push(...page.metrics);
    cursor = page.next_cursor;
  } while (cursor);
  return entries.map((e) => ({
    metric_name: e.metric_name,
    status: e.status,
    safe_to_use: e.safe_to_use,
    checked_at: e.checked_at,
    since: e.since,
  }));
}
