// Results of the tests of a metric that cannot run at all (an unparsable filter or
// expression): every test is "not evaluated" with the reason, so derive makes it `unknown`.
import type { InferredTest } from "../infer/types.js";
import { notEvaluated } from "./judge.js";
import type { TestResult } from "./types.js";

export function blockedResult(test: InferredTest, reason: string): TestResult {
  return {
    metric: test.metric,
    rule: test.rule,
    name: test.name,
    severity: test.severity,
    confidence: test.confidence,
    ...notEvaluated(reason),
    sample_sql: test.sample_sql,
    check: test.check,
  };
}

/** `evaluated` holds the results of the tests not blocked, in order; the output keeps `tests` order. */
export function mergeBlocked(tests: readonly InferredTest[], evaluated: readonly TestResult[], blocked: ReadonlyMap<string, string>): TestResult[] {
  if (blocked.size === 0) return [...evaluated];
  let next = 0;
  return tests.map((test) => {
    const reason = blocked.get(test.metric);
    return reason === undefined ? evaluated[next++]! : blockedResult(test, reason);
  });
}
