// A metric's current test results, judged from its checks' current observations with its own
// severities and tolerances. One place for REST's single-metric status and the metric page.
import { blockedResult } from "../evaluate/blocked.js";
import { judgeTest } from "../evaluate/judge.js";
import type { TestResult } from "../evaluate/types.js";
import type { ReadView } from "../read-model/read-model.js";

/** Every test of `name` that has a result in `view` (none before its first scan). */
export function metricResults(view: ReadView, name: string): TestResult[] {
  const tests = view.catalog.testsByMetric.get(name) ?? [];
  // A metric whose SQL ClickHouse cannot parse never ran, whatever its shared checks found.
  const blocked = view.blocked.get(name);
  if (blocked !== undefined) return tests.map((test) => blockedResult(test, blocked));
  return tests.flatMap((test) => {
    const observation = view.observations.get(test.key);
    return observation ? [judgeTest(test, observation)] : [];
  });
}
