// Pure merge of the catalogue with the statuses kept in the store. The catalogue decides
// WHICH metrics exist (stored rows of removed metrics are dropped); the store decides their
// status. A catalogue metric with no stored status has never been scanned: `unknown`.
import type { TestResult } from "../evaluate/types.js";
import type { StatusPeriod, StoredMetricStatus } from "../store/store.js";
import {
  iso,
  isProblem,
  periodView,
  testResultView,
  type MetricStatusView,
  type StatusEntryView,
  type StatusListingView,
  type StatusSummary,
} from "./views.js";

export function statusEntry(metricName: string, stored: StoredMetricStatus | null | undefined): StatusEntryView {
  if (!stored) return { metric_name: metricName, status: "unknown", safe_to_use: false, checked_at: null, since: null };
  return {
    metric_name: metricName,
    status: stored.status,
    // `unknown` is never safe, whatever a stored row says.
    safe_to_use: stored.status !== "unknown" && stored.safe_to_use,
    checked_at: iso(stored.checked_at),
    since: iso(stored.since),
  };
}

export function summarizeEntries(entries: readonly Pick<StatusEntryView, "status">[]): StatusSummary {
  const summary: StatusSummary = { total: entries.length, healthy: 0, degraded: 0, unreliable: 0, unknown: 0 };
  for (const e of entries) summary[e.status] += 1;
  return summary;
}

/** GET /v1/reliability/status: every catalogue metric, in catalogue order. */
export function buildStatusListing(
  metricNames: readonly string[],
  stored: readonly StoredMetricStatus[] | ReadonlyMap<string, StoredMetricStatus>,
): StatusListingView {
  const byName: ReadonlyMap<string, StoredMetricStatus> =
    stored instanceof Map
      ? (stored as ReadonlyMap<string, StoredMetricStatus>)
      : new Map((stored as readonly StoredMetricStatus[]).map((s) => [s.metric_name, s]));
  const metrics = metricNames.map((name) => statusEntry(name, byName.get(name)));
  return { summary: summarizeEntries(metrics), metrics };
}

/** GET /v1/reliability/status/:name, for a metric known to be in the catalogue. */
export function buildMetricStatus(
  metricName: string,
  stored: StoredMetricStatus | null,
  latestResults: readonly TestResult[],
  history: readonly StatusPeriod[],
): MetricStatusView {
  const problems = latestResults.filter((r) => r.metric === metricName && isProblem(r)).map(testResultView);
  return {
    ...statusEntry(metricName, stored),
    scan_id: stored?.scan_id ?? null,
    tests: stored ? { ...stored.tests } : { total: 0, passing: 0, failing: 0, warning: 0 },
    failing_tests: problems,
    history: history.map(periodView),
  };
}
