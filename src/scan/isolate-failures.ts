// A table query ClickHouse refused (an error in the SQL or the data, e.g. a dimension's
// `cast(ordered_at AS Date)` meeting a NULL) is bisected until the checks that throw are
// isolated; every other check still runs and is judged. The steps are planned by
// plan/isolate-plan.ts; this module sends them. An outage while bisecting (connection lost,
// timeout, dead server) is not caught here: `send` throws and the scan fails, as for any query.
import { failureCause, type FailureCause } from "../plan/failure-cause.js";
import { causeQuery, failingSql, isolationStep, refusedTests, rowsProbe, subsetQueries, type FilterState } from "../plan/isolate-plan.js";
import type { InferredTest } from "../infer/types.js";
import type { FailedCheck, ScanPlan, TableQuery, WarehouseSchema } from "../plan/types.js";
import type { QueryOutcome } from "../evaluate/types.js";

/** What ClickHouse said when it refused a query: its code and its words (without the query id). */
export interface Refusal {
  code: number | null;
  detail: string;
}

/** One query's answer: a row, or a refusal (outcome.error then holds the full message). */
export interface Answer {
  outcome: QueryOutcome;
  refusal: Refusal | null;
}

/** Sends one query; throws on an outage. */
export type Send = (query: TableQuery) => Promise<Answer>;

export interface Isolation {
  /** the queries that now stand for the refused one, and their outcomes */
  queries: TableQuery[];
  outcomes: QueryOutcome[];
  /** checks whose own SQL (or filter) throws on today's data */
  failed: FailedCheck[];
  /** queries sent beyond the refused one (probes, halves, counts) */
  extraQueries: number;
}

/**
 * Errors that say nothing about a check's SQL or data: the query was too long or too big to run
 * (max_query_size shows as a syntax error; the catalogue's SQL was checked to parse). A check
 * isolated with one of these is "not evaluated", not failed.
 * SYNTAX_ERROR, TOO_MANY_ROWS, MEMORY_LIMIT_EXCEEDED, TOO_MANY_BYTES, TOO_MANY_ROWS_OR_BYTES.
 */
const NOT_ABOUT_THE_DATA = new Set([62, 158, 241, 307, 396]);

const total = (outcome: QueryOutcome): number => Number(outcome.row?.total ?? 0);
const countOf = (outcome: QueryOutcome): number | null => {
  const value = Number(outcome.row?.c1);
  return Number.isFinite(value) ? value : null;
};

export async function isolateFailures(
  plan: ScanPlan,
  refused: TableQuery,
  answer: Answer & { refusal: Refusal },
  context: { schema: WarehouseSchema; maxQuerySize: number; send: Send },
): Promise<Isolation> {
  let ids = 0;
  const id = () => `${refused.id}-i${(ids += 1)}`;
  // The same SQL is sent once: a half holding only a filter's emptiness check is that filter's probe.
  let sent = 0;
  const answers = new Map<string, Promise<Answer>>();
  const send = async (query: TableQuery): Promise<Answer> => {
    let answer = answers.get(query.sql);
    if (!answer) {
      sent += 1;
      answer = context.send(query);
      answers.set(query.sql, answer);
    }
    const { outcome, refusal } = await answer;
    return { outcome: { ...outcome, query_id: query.id }, refusal };
  };
  const columns = context.schema[refused.datasource]?.[refused.table] ?? {};

  // filter (null: the table) -> readable or throws, with its rows; one probe per filter.
  const filters = new Map<string | null, FilterState>();
  const rows = new Map<string | null, number>();
  const refusals = new Map<string | null, Refusal>();
  const probes = new Map<string | null, Promise<void>>();
  const probe = (filter: string | null): Promise<void> => {
    let pending = probes.get(filter);
    if (!pending) {
      pending = send(rowsProbe(refused, filter, id())).then(({ outcome, refusal }) => {
        filters.set(filter, refusal === null ? "readable" : "throws");
        if (refusal === null) rows.set(filter, total(outcome));
        else refusals.set(filter, refusal);
      });
      probes.set(filter, pending);
    }
    return pending;
  };

  // The table itself cannot be read (not a check's doing): every test keeps the refusal, "not evaluated".
  await probe(null);
  if (filters.get(null) === "throws") return { queries: [refused], outcomes: [answer.outcome], failed: [], extraQueries: sent };

  const queries: TableQuery[] = [];
  const outcomes: QueryOutcome[] = [];
  const failedChecks: { test: InferredTest; refusal: Refusal }[] = [];
  const failedFilters = new Set<InferredTest>();

  const search = async (tests: readonly InferredTest[], query: TableQuery, failure: Answer & { refusal: Refusal }): Promise<void> => {
    const { underFailedFilter, step } = isolationStep(tests, filters);
    for (const test of underFailedFilter) failedFilters.add(test);
    if (step === null) return;
    if (step.kind === "probe_filter") {
      await probe(step.filter);
      return search(tests, query, failure);
    }
    if (step.kind === "isolated") {
      if (NOT_ABOUT_THE_DATA.has(failure.refusal.code ?? -1)) {
        queries.push(query);
        outcomes.push(failure.outcome);
      } else failedChecks.push({ test: step.test, refusal: failure.refusal });
      return;
    }
    await Promise.all((step.kind === "retry" ? [step.tests] : step.halves).map(querySubset));
  };
  /** Queries a subset; a refused part is searched further. */
  const querySubset = async (tests: InferredTest[]): Promise<void> => {
    const parts = subsetQueries(tests, context.schema, { maxQuerySize: context.maxQuerySize }, id);
    await Promise.all(
      parts.map(async (part) => {
        const answer = await send(part);
        if (answer.refusal === null) {
          queries.push(part);
          outcomes.push(answer.outcome);
          return;
        }
        const keys = new Set(part.outputs.map((output) => output.test_key));
        await search(
          tests.filter((test) => keys.has(test.key)),
          part,
          answer as Answer & { refusal: Refusal },
        );
      }),
    );
  };
  await search(refusedTests(plan, refused), refused, answer);

  const failed = await Promise.all([
    ...failedChecks.map(({ test, refusal }) => describeFailure(test, "check", refusal)),
    ...[...failedFilters].map((test) => describeFailure(test, "filter", refusals.get(test.filter)!)),
  ]);
  return { queries, outcomes, failed, extraQueries: sent };

  /** The failed check with its rows and, when they can be counted safely, the rows that make it throw. */
  async function describeFailure(test: InferredTest, part: FailedCheck["part"], refusal: Refusal): Promise<FailedCheck> {
    // A throwing filter is counted over the whole table; a throwing check over its filter's rows.
    const over = part === "filter" ? null : test.filter;
    const base = { test_key: test.key, part, error: refusal.detail, rows_total: rows.get(over) ?? 0, rows_affected: null, cause: null };
    const cause = failureCause(failingSql(test, part), refusal.code, columns);
    if (cause === null) return base;
    const counted = await countCause(over, cause);
    return counted === null ? base : { ...base, rows_affected: counted, cause: cause.cause };
  }

  /** The count of the rows that make it throw (the tests of a throwing filter share one: `send` sends a SQL text once). */
  async function countCause(over: string | null, cause: FailureCause): Promise<number | null> {
    const { outcome, refusal } = await send(causeQuery(refused, over, cause, id()));
    return refusal === null ? countOf(outcome) : null;
  }
}
