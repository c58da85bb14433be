// Every metric's status and the failing tests' problems by root table, from the scan's
// observations. A metric keeps the status of the last judgement of the same catalogue when none
// of its checks changed what judging reads (outcome, rows affected, rows total) and its blocked
// reason is the same: an unchanged scan of 10,000 metrics judges nothing again (judging all
// 130,000 tests, then walking them again for the incidents, was a fifth of its time).
import { deriveStatuses } from "../derive/derive.js";
import type { MetricStatus, TestCounts } from "../derive/types.js";
import { judgeAll } from "../evaluate/evaluate.js";
import type { CheckObservation } from "../evaluate/types.js";
import { forEachSlice } from "../event-loop/chunked.js";
import { failingTests } from "../incidents/failing-tests.js";
import { groupProblems } from "../incidents/group-problems.js";
import type { TableProblem } from "../incidents/types.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";

/** One scan's judgement, and what it was judged on (the next scan's basis for reuse). */
export interface Judgement {
  snapshot: CatalogSnapshot;
  blocked: ReadonlyMap<string, string>;
  observations: ReadonlyMap<string, CheckObservation>;
  /** catalogue order */
  statuses: MetricStatus[];
  /** over every (metric, test) */
  summary: TestCounts;
  /** failing tests by root table (incidents/) */
  problems: TableProblem[];
}

/** What judging a test reads of its check's observation (evaluate/judge.ts statusOf, derive.ts). */
const sameForJudging = (a: CheckObservation, b: CheckObservation): boolean =>
  a === b || (a.outcome === b.outcome && a.rows_affected === b.rows_affected && a.rows_total === b.rows_total);

/** check key -> the metrics whose tests read it, once per snapshot. */
const metricsOfKeys = new WeakMap<CatalogSnapshot, Map<string, string[]>>();
function metricsByKey(snapshot: CatalogSnapshot): Map<string, string[]> {
  const kept = metricsOfKeys.get(snapshot);
  if (kept) return kept;
  const byKey = new Map<string, string[]>();
  for (const test of snapshot.tests) {
    const metrics = byKey.get(test.key);
    if (!metrics) byKey.set(test.key, [test.metric]);
    else if (metrics.at(-1) !== test.metric) metrics.push(test.metric);
  }
  metricsOfKeys.set(snapshot, byKey);
  return byKey;
}

function sameBlocked(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [metric, reason] of a) if (b.get(metric) !== reason) return false;
  return true;
}

/**
 * The metrics to judge again: those with a check whose observation differs for judging from the
 * last judgement's (or that one of them lacks). Null: judge every metric (no last judgement, or
 * one of another catalogue or other blocked metrics).
 */
export function metricsToJudge(
  last: Judgement | null,
  snapshot: CatalogSnapshot,
  blocked: ReadonlyMap<string, string>,
  observations: ReadonlyMap<string, CheckObservation>,
): Set<string> | null {
  if (last === null || last.snapshot !== snapshot || !sameBlocked(last.blocked, blocked)) return null;
  const byKey = metricsByKey(snapshot);
  const metrics = new Set<string>();
  const mark = (key: string) => {
    for (const metric of byKey.get(key) ?? []) metrics.add(metric);
  };
  for (const [key, observation] of observations) {
    const before = last.observations.get(key);
    if (before === undefined || !sameForJudging(before, observation)) mark(key);
  }
  for (const key of last.observations.keys()) if (!observations.has(key)) mark(key);
  return metrics;
}

/** The judgement of `observations`; metrics unchanged since `last` keep its statuses (metricsToJudge). */
export async function judgeMetrics(
  snapshot: CatalogSnapshot,
  observations: ReadonlyMap<string, CheckObservation>,
  blocked: ReadonlyMap<string, string>,
  last: Judgement | null,
): Promise<Judgement> {
  const again = metricsToJudge(last, snapshot, blocked, observations);
  if (last !== null && again !== null && again.size === 0) {
    // Nothing judging reads changed: the same statuses, counts and problems.
    return { ...last, observations, statuses: last.statuses.slice() };
  }
  const kept = again === null || last === null ? null : new Map(last.statuses.map((s) => [s.metric_name, s]));
  const statuses: MetricStatus[] = [];
  await forEachSlice(
    snapshot.metrics,
    (slice) => {
      const names = slice.map((m) => m.name).filter((name) => kept === null || again!.has(name) || !kept.has(name));
      const results = judgeAll(
        names.flatMap((name) => snapshot.testsByMetric.get(name) ?? []),
        observations,
        blocked,
      );
      const judged = new Map(deriveStatuses(names, results).map((s) => [s.metric_name, s]));
      for (const metric of slice) statuses.push(judged.get(metric.name) ?? kept!.get(metric.name)!);
    },
    500,
  );
  // Each test is in one metric's list: the metrics' counts add up to the scan's.
  const summary: TestCounts = { total: 0, passing: 0, failing: 0, warning: 0 };
  for (const { tests } of statuses) {
    summary.total += tests.total;
    summary.passing += tests.passing;
    summary.failing += tests.failing;
    summary.warning += tests.warning;
  }
  const problems = groupProblems(failingTests(snapshot.tests, observations, blocked), snapshot.metrics);
  return { snapshot, blocked, observations, statuses, summary, problems };
}
