// `scan --server URL`: asks a running daemon over its REST API (the key comes from
// METRIC_RELIABILITY_API_KEY). Every answer but a verdict (401, 404, 503, a refused
// connection, a timeout) is exit 2: the circuit breaker must not mistake a fault for data.
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

async function call<T>(options: RemoteOptions, method: "GET" | "POST", path: string, what: string): Promise<T> {
  const url = new URL(path, options.server.endsWith("/") ? options.server : `${options.server}/`);
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${options.apiKey}`, accept: "application/json" },
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
    throw new CliError(`${what}: server answered ${response.status}: ${message}`);
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
  if (fresh) {
    const scan = await call<ScanTriggerView>(options, "POST", "v1/reliability/scan?wait=true", "scan");
    if (scan.status !== "succeeded") throw new CliError(`scan ${scan.scan_id} ${scan.status}: ${scan.error ?? "no error given"}`);
  }
  if (names.length > 0) {
    const views = [];
    for (const name of names) {
      views.push(await call<MetricStatusView>(options, "GET", `v1/reliability/status/${encodeURIComponent(name)}`, `metric "${name}"`));
    }
    return views.map(verdictOf);
  }
  // Every metric: the listing, page by page once the server paginates it.
  const entries: StatusEntryView[] = [];
  let cursor: string | null | undefined = null;
  do {
    const query: string = `?limit=10000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page: ListingPage = await call<ListingPage>(options, "GET", `v1/reliability/status${query}`, "status listing");
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
