// A scan's failing (metric, test) pairs with their root: the table the test reads, and the column
// where it reads exactly one. Judged the way evaluate does (statusOf), from the observations the
// scan hands to the store, so an incident agrees with the statuses written beside it.
import { statusOf } from "../evaluate/judge.js";
import type { CheckObservation } from "../evaluate/types.js";
import type { InferredTest } from "../infer/types.js";
import type { FailingTest } from "./types.js";

/** The column of the root table the test reads, when it reads one and only one. */
export function rootColumn(test: Pick<InferredTest, "table" | "columns">): string | null {
  // A loop, not a Set: every failing test of every scan comes through here.
  let column: string | null = null;
  for (const c of test.columns) {
    if (c.table !== test.table || c.column === column) continue;
    if (column !== null) return null;
    column = c.column;
  }
  return column;
}

/**
 * Tests of metrics that could not run at all (`blocked`: their SQL does not parse) are warnings,
 * never failures, so they open nothing; neither does a check without an observation.
 */
export function failingTests(
  tests: readonly InferredTest[],
  observations: ReadonlyMap<string, CheckObservation>,
  blocked: ReadonlyMap<string, string> = new Map(),
): FailingTest[] {
  const failing: FailingTest[] = [];
  for (const test of tests) {
    const observation = observations.get(test.key);
    if (!observation || blocked.has(test.metric)) continue;
    if (statusOf(test, observation) !== "failing") continue;
    failing.push({
      key: test.key,
      metric: test.metric,
      rule: test.rule,
      name: test.name,
      check: test.check,
      severity: test.severity,
      outcome: observation.outcome,
      datasource: test.datasource,
      table: test.table,
      column: rootColumn(test),
    });
  }
  return failing;
}
