// Raw query rows -> one observation per distinct check (by key) -> one TestResult per test.
// Shared checks ran once and are observed once; each metric then judges the same answer with
// its own severity and tolerance.
import type { InferredTest } from "../infer/types.js";
import type { ScanPlan, WarehouseSchema } from "../plan/types.js";
import { judgeTest } from "./judge.js";
import { failedToCompute, notApplicable, notEvaluated, observeRows, observeSchema, type Parts } from "./observe.js";
import type { CheckObservation, QueryOutcome, TestResult } from "./types.js";

interface Located {
  queryId: string;
  aliases: Record<string, string>; // part -> alias
}

/** ClickHouse JSON renders UInt64 as a string; anything unparsable reads as missing. */
function toNumber(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined || value === "") return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

function locate(plan: ScanPlan): Map<string, Located> {
  const located = new Map<string, Located>();
  for (const query of plan.queries) {
    for (const output of query.outputs) {
      let entry = located.get(output.test_key);
      if (!entry) {
        entry = { queryId: query.id, aliases: {} };
        located.set(output.test_key, entry);
      }
      entry.aliases[output.part] = output.alias;
    }
  }
  return located;
}

/** What one test's check found, from the plan's query answers; the lookups are built once. */
export function createObserver(
  plan: ScanPlan,
  outcomes: readonly QueryOutcome[],
  schema: WarehouseSchema,
): (test: InferredTest) => CheckObservation {
  const skipped = new Map(plan.skipped.map((entry) => [entry.test_key, entry]));
  const failed = new Map(plan.failed.map((entry) => [entry.test_key, entry]));
  const located = locate(plan);
  const outcomeById = new Map(outcomes.map((outcome) => [outcome.query_id, outcome]));

  const observe = (test: InferredTest): CheckObservation => {
    if (test.probe.type === "schema") return observeSchema(test, schema);
    const skip = skipped.get(test.key);
    if (skip !== undefined) {
      // A check that cannot apply (measure_finite on a non-float) is not a problem.
      return skip.outcome === "not_applicable" ? notApplicable(skip.reason) : notEvaluated(skip.reason);
    }
    const failure = failed.get(test.key);
    if (failure !== undefined) return failedToCompute(test, failure);
    const where = located.get(test.key);
    if (!where) return notEvaluated("test was not planned");
    const outcome = outcomeById.get(where.queryId);
    if (!outcome) return notEvaluated(`no result for query ${where.queryId}`);
    if (outcome.error !== null || outcome.row === null) return notEvaluated(outcome.error ?? "query returned no row");
    const row = outcome.row;
    // The test's own filter's row count (the query's count() when its WHERE is the filter).
    const total = toNumber(row[where.aliases.total ?? "total"]);
    if (total === null) return notEvaluated(`query ${where.queryId} returned no total`);
    const parts: Parts = {};
    for (const [part, alias] of Object.entries(where.aliases)) parts[part] = toNumber(row[alias]);
    return observeRows(test, total, parts);
  };

  return (test) => {
    const observation = observe(test);
    // The planner may have adapted the sample query to the column types (join keys of different widths).
    const adapted = plan.sample_sql[test.key];
    return adapted !== undefined && adapted !== test.sample_sql ? { ...observation, sample_sql: adapted } : observation;
  };
}

/** Adds the observation of every test whose key `into` lacks (shared checks are observed once). */
export function observeInto(
  into: Map<string, CheckObservation>,
  tests: readonly InferredTest[],
  observe: (test: InferredTest) => CheckObservation,
): void {
  for (const test of tests) if (!into.has(test.key)) into.set(test.key, observe(test));
}

/** One observation per distinct test key. */
export function observeChecks(
  tests: readonly InferredTest[],
  plan: ScanPlan,
  outcomes: readonly QueryOutcome[],
  schema: WarehouseSchema,
): Map<string, CheckObservation> {
  const observations = new Map<string, CheckObservation>();
  observeInto(observations, tests, createObserver(plan, outcomes, schema));
  return observations;
}

/** Each test judged on its check's observation; a test without one is "not evaluated". */
const NONE_BLOCKED: ReadonlyMap<string, string> = new Map();

/**
 * Each test judged on its check's observation. A test of a metric in `blocked` (metric -> why it
 * cannot run, e.g. its filter does not parse) is "not evaluated" whatever its shared check found.
 */
export function judgeAll(
  tests: readonly InferredTest[],
  observations: ReadonlyMap<string, CheckObservation>,
  blocked = NONE_BLOCKED,
): TestResult[] {
  return tests.map((test) => {
    const reason = blocked.get(test.metric);
    const observation =
      reason !== undefined ? notEvaluated(reason) : (observations.get(test.key) ?? notEvaluated("no observation for this check"));
    return judgeTest(test, observation);
  });
}

export function evaluate(tests: InferredTest[], plan: ScanPlan, outcomes: QueryOutcome[], schema: WarehouseSchema): TestResult[] {
  return judgeAll(tests, observeChecks(tests, plan, outcomes, schema));
}
