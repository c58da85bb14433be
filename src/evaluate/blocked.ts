// Results of the tests of a metric that cannot run at all (an unparsable filter or
// expression): every test is "not evaluated" with the reason, so derive makes it `unknown`.
// Judged per metric, not per check: a check it shares with runnable metrics still ran for them.
import type { InferredTest } from "../infer/types.js";
import { judgeTest } from "./judge.js";
import { notEvaluated } from "./observe.js";
import type { TestResult } from "./types.js";

export function blockedResult(test: InferredTest, reason: string): TestResult {
  return judgeTest(test, notEvaluated(reason));
}
