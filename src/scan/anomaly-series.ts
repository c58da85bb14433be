// Reads the anomaly series of a scan from the warehouse: per (datasource, table, timestamp) the
// cadence query (server clock, newest row, gaps between rows), then per grain ONE series query
// over the complete buckets of the span. A query ClickHouse refuses (a data or SQL error) makes
// only its own checks "not evaluated"; a lost connection or a timeout fails the scan, as every
// other query of the scan does.
import pLimit from "p-limit";
import { judgeAnomalyCheck, judgeGroupSteps, skippedObservation } from "../evaluate/anomaly-judge.js";
import type { FeedbackIndex } from "../evaluate/anomaly-observation.js";
import type { AnomalyJudgement, CheckObservation, FlaggedBucket } from "../evaluate/types.js";
import type { SeriesVerdicts } from "../evaluate/series-verdicts.js";
import { runSteps } from "../event-loop/chunked.js";
import { readSegmentedSeries, readSeries, type GrainReading, type GroupReading } from "../evaluate/series-values.js";
import type { InferredTest } from "../infer/types.js";
import { cadenceQuery, parseCadence, usualGapSeconds } from "../plan/cadence-query.js";
import {
  planAnomalies,
  seriesQueries,
  seriesSpan,
  type AnomalyPlan,
  type SeriesGroup,
  type SeriesOutput,
  type SeriesQuery,
} from "../plan/series-query.js";
import type { WarehouseSchema } from "../plan/types.js";
import { WarehouseError } from "../warehouse/warehouse-error.js";
import type { Warehouse } from "../warehouse/warehouse.js";

/** Bytes kept free below max_query_size for what the clients add (see plan-scan's QUERY_WRAPPER_BYTES). */
const WRAPPER_BYTES = 512;

export interface AnomalyReading {
  plan: AnomalyPlan;
  /** by group id */
  groups: Map<string, GroupReading>;
  /** queries sent, and seconds spent waiting for them */
  queries: number;
  seconds: number;
  /** groups taken from `reuse` instead of read */
  reused: number;
}

export interface ReadOptions {
  scanId: string;
  concurrency: number;
  maxQuerySize: number;
  signal: AbortSignal;
  onQuery?: (seconds: number) => void;
  /**
   * Incremental scans: a group whose table has not changed since it was last read returns that
   * reading re-judged for now (see series-cache.ts rejudgeGroup); null reads it again.
   */
  reuse?: (group: SeriesGroup) => GroupReading | null;
  /** the table's fingerprint at the start of the scan, stamped on each reading (see reuse) */
  fingerprintOf?: (group: SeriesGroup) => string | null;
  /** called with each group's reading as it is complete (the scan judges it while others are read; awaited before the reading is returned) */
  onGroup?: (reading: GroupReading) => void | Promise<void>;
}

type Ask = (sql: string, queryId: string) => Promise<{ rows: Record<string, unknown>[] } | { refused: string }>;
type Answer = { outputs: readonly SeriesOutput[]; rows: Record<string, unknown>[] };

/** The queries of one grain (one, unless it had to be split), or the first refusal. */
async function askAll(ask: Ask, queries: readonly SeriesQuery[], id: string): Promise<Answer[] | { refused: string }> {
  const answers: Answer[] = [];
  for (const [i, query] of queries.entries()) {
    const result = await ask(query.sql, queries.length > 1 ? `${id}-${i + 1}` : id);
    if ("refused" in result) return result;
    answers.push({ outputs: query.outputs, rows: result.rows });
  }
  return answers;
}

function asker(warehouse: Warehouse, options: ReadOptions, signal: AbortSignal, count: () => void, wait: (s: number) => void): Ask {
  return async (sql, queryId) => {
    const started = performance.now();
    count();
    try {
      return { rows: await warehouse.query(sql, { queryId, signal }) };
    } catch (error) {
      if (error instanceof WarehouseError && (error.kind === "query" || error.kind === "rejected")) return { refused: error.message };
      if (options.signal.aborted) throw new Error("scan cancelled", { cause: error });
      throw new Error(`warehouse "${warehouse.name}" did not answer: ${(error as Error).message}`, { cause: error });
    } finally {
      const seconds = (performance.now() - started) / 1000;
      wait(seconds);
      options.onQuery?.(seconds);
    }
  };
}

async function readGroup(group: SeriesGroup, ask: Ask, options: ReadOptions, n: number): Promise<GroupReading> {
  const id = `${options.scanId}-series${n}`;
  // The window's start needs a clock before the server's is known; it only bounds how far back to look.
  const windowStart = Math.floor(Date.now() / 1000) - group.windowSeconds;
  const answer = await ask(cadenceQuery(group, windowStart), `${id}-cadence`);
  if ("refused" in answer) return { group, cadence: null, error: answer.refused, grains: [] };
  const cadence = parseCadence(answer.rows[0]);
  if (cadence === null) return { group, cadence: null, error: "the cadence query returned no row", grains: [] };
  const usualGap = usualGapSeconds(cadence.gaps);
  const grains: GrainReading[] = [];
  for (const plan of group.grains) {
    const span = seriesSpan(cadence, group.kind, plan.grain, plan.buckets, usualGap);
    if (span === null) {
      grains.push({ grain: plan.grain, segment: plan.segment, series: null, failed: new Map() });
      continue;
    }
    const budget = options.maxQuerySize - WRAPPER_BYTES;
    const failed = new Map<string, string>();
    const name = `${id}-${plan.grain}${plan.segment === null ? "" : `-s${group.grains.indexOf(plan)}`}`;
    let answers = await askAll(ask, seriesQueries(group, plan, span, budget), name);
    if ("refused" in answers && plan.tests.length > 1) {
      // One check's SQL (an expression that throws on the data) must not cost the others theirs:
      // each check again on its own query; only the refused ones are not evaluated.
      const parts: Answer[] = [];
      for (const [i, test] of plan.tests.entries()) {
        const own = await askAll(ask, seriesQueries(group, { ...plan, tests: [test] }, span, budget), `${name}-t${i + 1}`);
        if ("refused" in own) failed.set(test.key, own.refused);
        else parts.push(...own);
      }
      answers = parts;
    } else if ("refused" in answers) {
      failed.set(plan.tests[0]!.key, answers.refused);
      answers = [];
    }
    const series = plan.segment === null ? readSeries(span, answers, cadence.oldest) : readSegmentedSeries(span, answers, cadence.oldest);
    grains.push({ grain: plan.grain, segment: plan.segment, series, failed });
  }
  return { group, cadence, error: null, grains };
}

/**
 * planAnomalies once per (tests, schema): a scan of an unchanged catalogue and warehouse passes
 * the same tests array (scan-tests.ts), and planning its 9,500 anomaly checks among 134,000
 * tests again was a long turn of every scan at 10,000 metrics. The plan is only read.
 */
const plans = new WeakMap<readonly InferredTest[], { schema: string; plan: AnomalyPlan }>();
function plannedFor(tests: readonly InferredTest[], schema: WarehouseSchema): AnomalyPlan {
  const signature = JSON.stringify(schema);
  const kept = plans.get(tests);
  if (kept?.schema === signature) return kept.plan;
  const plan = planAnomalies(tests, schema);
  plans.set(tests, { schema: signature, plan });
  return plan;
}

/**
 * Plans and reads the anomaly series of `tests` (the anomaly tests of the scan, any number of
 * metrics each), groups concurrently up to `concurrency`.
 */
export async function readAnomalySeries(
  tests: readonly InferredTest[],
  schema: WarehouseSchema,
  warehouses: ReadonlyMap<string, Warehouse>,
  options: ReadOptions,
): Promise<AnomalyReading> {
  const plan = plannedFor(tests, schema);
  const limit = pLimit(options.concurrency);
  const stop = new AbortController();
  const signal = AbortSignal.any([options.signal, stop.signal]);
  let queries = 0;
  let seconds = 0;
  let reused = 0;
  const groups = new Map<string, GroupReading>();
  const judgings: Promise<void>[] = [];
  await Promise.all(
    plan.groups.map((group, index) =>
      limit(async () => {
        const done = (reading: GroupReading) => {
          groups.set(group.id, reading);
          // Not awaited here: the query slot is free for the next group while this one is judged.
          const judging = options.onGroup?.(reading);
          if (!judging) return;
          // Handled here as well: if a query fails first, nobody awaits it.
          judging.catch(() => {});
          judgings.push(judging);
        };
        const held = options.reuse?.(group) ?? null;
        if (held) {
          reused += 1;
          return done(held);
        }
        const warehouse = warehouses.get(group.datasource);
        if (!warehouse) return done({ group, cadence: null, error: `datasource "${group.datasource}" is not configured`, grains: [] });
        const ask = asker(
          warehouse,
          options,
          signal,
          () => (queries += 1),
          (s) => (seconds += s),
        );
        const reading = await readGroup(group, ask, options, index + 1);
        const fingerprint = options.fingerprintOf?.(group) ?? null;
        return done(fingerprint === null ? reading : { ...reading, fingerprint });
      }).catch((error: unknown) => {
        // The first outage stops the queries still waiting: the scan fails anyway.
        stop.abort();
        throw error;
      }),
    ),
  );
  await Promise.all(judgings);
  return { plan, groups, queries, seconds, reused };
}

export interface AnomalyJudgements {
  /** by check key: every anomaly check of the reading's plan */
  observations: Map<string, CheckObservation>;
  /** the detection buckets flagged in this scan */
  flagged: FlaggedBucket[];
  /** checks whose series were scored (their buckets no longer flagged stop being active) */
  judged: string[];
  /** by check key: every scored series' verdicts, bucket by bucket (what the read path draws) */
  verdicts: Map<string, SeriesVerdicts>;
}

/**
 * Every anomaly check of the reading: the groups' checks as judged by judgeGroup (into
 * `judgements`, as each group arrived: see ReadOptions.onGroup), those of a group not judged yet
 * now, and the skipped ones from their reason.
 */
export async function judgeReading(
  reading: AnomalyReading,
  feedback: FeedbackIndex,
  judgements: Map<string, AnomalyJudgement> = new Map(),
): Promise<AnomalyJudgements> {
  const pending = reading.plan.groups.filter(
    (g) => reading.groups.has(g.id) && ![...g.cadenceTests, ...g.grains.flatMap((x) => x.tests)].every((t) => judgements.has(t.key)),
  );
  for (const group of pending) await runSteps(judgeGroupSteps(reading.groups.get(group.id)!, feedback, judgements));
  const observations = new Map<string, CheckObservation>();
  const flagged: FlaggedBucket[] = [];
  const judged: string[] = [];
  const verdicts = new Map<string, SeriesVerdicts>();
  for (const { test_key, outcome, reason } of reading.plan.skipped) observations.set(test_key, skippedObservation({ outcome, reason }));
  for (const group of reading.plan.groups) {
    for (const test of [...group.cadenceTests, ...group.grains.flatMap((g) => g.tests)]) {
      const judgement = judgements.get(test.key) ?? judgeAnomalyCheck(test, undefined, feedback);
      observations.set(test.key, judgement.observation);
      flagged.push(...judgement.flagged);
      if (judgement.judged) judged.push(test.key);
      if (judgement.verdicts) verdicts.set(test.key, judgement.verdicts);
    }
  }
  return { observations, flagged, judged, verdicts };
}
