// Derived metrics inherit their inputs' tests, so an input that is missing, invalid or
// part of a cycle would silently leave the derived metric without tests: reject it.
import type { MetricDefinition } from "./types.js";

export interface InputProblem {
  metric: MetricDefinition;
  /** `inputs[i]: reason` */
  message: string;
}

/**
 * @param candidates metrics that passed their own validation, in catalogue order
 * @param failed names of metrics that were rejected (so "invalid" can be told from "unknown")
 * @returns one problem per derived metric that must be rejected, in candidate order
 */
export function checkDerivedInputs(candidates: MetricDefinition[], failed: ReadonlySet<string>): InputProblem[] {
  const byName = new Map(candidates.map((m) => [m.name, m] as const));
  const inputsOf = (name: string): string[] => {
    const metric = byName.get(name);
    return metric?.kind === "derived" ? metric.inputs : [];
  };

  /** Path start -> ... -> start through derived metrics, or null. */
  function cycleFrom(start: string): string[] | null {
    const seen = new Set<string>();
    const walk = (name: string, path: string[]): string[] | null => {
      for (const input of inputsOf(name)) {
        if (input === start) return [...path, input];
        if (seen.has(input)) continue;
        seen.add(input);
        const found = walk(input, [...path, input]);
        if (found) return found;
      }
      return null;
    };
    return walk(start, [start]);
  }

  const memo = new Map<string, string | null>();
  function problemOf(metric: MetricDefinition): string | null {
    if (metric.kind !== "derived") return null;
    const known = memo.get(metric.name);
    if (known !== undefined) return known;
    memo.set(metric.name, "cycle"); // guard while visiting; cycles are reported below
    const problem = computeProblem(metric.inputs, metric.name);
    memo.set(metric.name, problem);
    return problem;
  }

  function computeProblem(inputs: string[], name: string): string | null {
    for (const [i, input] of inputs.entries()) {
      if (byName.has(input)) continue;
      return failed.has(input) ? `inputs[${i}]: metric ${input} is invalid (see its errors)` : `inputs[${i}]: unknown metric ${input}`;
    }
    const cycle = cycleFrom(name);
    if (cycle) return `inputs: cycle ${cycle.join(" -> ")}`;
    for (const [i, input] of inputs.entries()) {
      const dependency = byName.get(input)!;
      if (problemOf(dependency) !== null) return `inputs[${i}]: metric ${input} is invalid (see its errors)`;
    }
    return null;
  }

  const problems: InputProblem[] = [];
  for (const metric of candidates) {
    const problem = problemOf(metric);
    if (problem !== null) problems.push({ metric, message: problem });
  }
  return problems;
}
