// Results of the tests of a metric that cannot run at all (an unparsable filter or
// expression): every test is "not evaluated" with the reason, so derive makes it `unknown`.
// Judged per metric, not per check: a check it shares with runnable metrics still ran for them.
import type { InferredTest } from "../infer/types.js";
import { judgeAll } from "./evaluate.js";
import { judgeTest } from "./judge.js";
import { notEvaluated } from "./observe.js";
import type { CheckObservation, TestResult } from "./types.js";

export function blockedResult(test: InferredTest, reason: string): TestResult {
  return judgeTest(test, notEvaluated(reason));
}

/** Each test judged on its check's observation, or "not evaluated" when its metric cannot run. */
export function judgeWithBlocked(tests: readonly InferredTest[], observations: ReadonlyMap<string, CheckObservation>, blocked: ReadonlyMap<string, string>): TestResult[] {
  if (blocked.size === 0) return judgeAll(tests, observations);
  return tests.map((test) => {
    const reason = blocked.get(test.metric);
    return reason === undefined ? judgeAll([test], observations)[0]! : blockedResult(test, reason);
  });
}
