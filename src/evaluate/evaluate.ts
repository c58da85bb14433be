// Raw query rows -> one TestResult per input test. Shared checks ran once (by key)
// and are reported here for every metric that has them.
import type { InferredTest } from "../infer/types.js";
import type { ScanPlan, WarehouseSchema } from "../plan/types.js";
import { judgeRows, judgeSchema, notEvaluated, type Parts, type Verdict } from "./judge.js";
import type { QueryOutcome, TestResult } from "./types.js";

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

export function evaluate(tests: InferredTest[], plan: ScanPlan, outcomes: QueryOutcome[], schema: WarehouseSchema): TestResult[] {
  const skipped = new Map(plan.skipped.map((entry) => [entry.test_key, entry.reason]));
  const located = locate(plan);
  const outcomeById = new Map(outcomes.map((outcome) => [outcome.query_id, outcome]));

  const verdictFor = (test: InferredTest): Verdict => {
    if (test.probe.type === "schema") return judgeSchema(test, schema);
    const reason = skipped.get(test.key);
    if (reason !== undefined) {
      // A check that cannot apply (measure_finite on a non-float) is not a problem.
      if (reason.startsWith("not applicable")) return { status: "passing", rows_affected: 0, rows_total: 0, message: reason };
      return notEvaluated(reason);
    }
    const where = located.get(test.key);
    if (!where) return notEvaluated("not evaluated: test was not planned");
    const outcome = outcomeById.get(where.queryId);
    if (!outcome) return notEvaluated(`not evaluated: no result for query ${where.queryId}`);
    if (outcome.error !== null || outcome.row === null) return notEvaluated(`not evaluated: ${outcome.error ?? "query returned no row"}`);
    const row = outcome.row;
    // The test's own filter's row count (the query's count() when its WHERE is the filter).
    const total = toNumber(row[where.aliases.total ?? "total"]);
    if (total === null) return notEvaluated(`not evaluated: query ${where.queryId} returned no total`);
    const parts: Parts = {};
    for (const [part, alias] of Object.entries(where.aliases)) parts[part] = toNumber(row[alias]);
    return judgeRows(test, total, parts);
  };

  return tests.map((test): TestResult => {
    // Looked up by key, so every metric sharing a check reads the same query answer;
    // judged per test, so each keeps its own severity and tolerance.
    const verdict = verdictFor(test);
    return {
      metric: test.metric,
      rule: test.rule,
      name: test.name,
      severity: test.severity,
      confidence: test.confidence,
      ...verdict,
      // The planner may have adapted it to the column types (join keys of different widths).
      sample_sql: plan.sample_sql[test.key] ?? test.sample_sql,
      check: test.check,
    };
  });
}
