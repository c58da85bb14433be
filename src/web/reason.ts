// The one sentence under a metric's status: why it is (not) safe to use. It explains the status
// derive/ computed from the same results; it never decides a status itself.
import type { ReliabilityStatus } from "../derive/types.js";
import type { TestResultView } from "../services/views.js";
import { plural } from "./format.js";

export interface ReasonInput {
  status: ReliabilityStatus;
  /** every test result of the metric (none before its first scan) */
  results: readonly Pick<TestResultView, "name" | "severity" | "status" | "message">[];
}

function andMore(n: number, what: string): string {
  return n > 0 ? `, and ${plural(n, `more ${what}`, `more ${what}s`)}` : "";
}

export function reasonSentence({ status, results }: ReasonInput): string {
  const failing = results.filter((r) => r.status === "failing");
  const warnings = results.filter((r) => r.status === "warning");
  switch (status) {
    case "healthy":
      return `Safe to use: ${results.length === 1 ? "its one test passes" : `all ${plural(results.length, "test")} pass`}.`;
    case "unreliable": {
      const high = failing.filter((r) => r.severity === "HIGH");
      const first = high[0] ?? failing[0];
      if (!first) return "Not safe to use: a HIGH-severity test is failing.";
      return `Not safe to use: the ${first.severity}-severity test “${first.name}” fails (${first.message})${andMore(high.length - 1, "failing HIGH test")}.`;
    }
    case "degraded": {
      const first = failing[0] ?? warnings[0];
      if (!first) return "Safe to use, with care: a test needs attention.";
      const verb = first.status === "failing" ? "fails" : "warns";
      return `Safe to use, with care: “${first.name}” ${verb} (${first.message})${andMore(failing.length + warnings.length - 1, "test needing attention")}.`;
    }
    case "unknown": {
      if (results.length === 0) return "Not safe to use: no scan has checked this metric yet.";
      const first = warnings[0] ?? failing[0];
      return `Not safe to use: none of its data tests could be evaluated${first ? ` (${first.message})` : ""}.`;
    }
  }
}
