// The anomaly part of a scan, as execute-scan.ts calls it: read the series (warehouse time),
// then judge them with the feedback (evaluate time), and hand the scan service what the store
// and the read path keep: the flagged buckets and the readings.
import type { FeedbackIndex } from "../evaluate/anomaly-observation.js";
import type { GroupReading } from "../evaluate/series-values.js";
import type { AnomalyJudgement, CheckObservation, FlaggedBucket } from "../evaluate/types.js";
import type { SeriesVerdicts } from "../evaluate/series-verdicts.js";
import type { InferredTest } from "../infer/types.js";
import type { SeriesGroup } from "../plan/series-query.js";
import type { WarehouseSchema } from "../plan/types.js";
import type { Warehouse } from "../warehouse/warehouse.js";
import { rejudgeGroup, type SeriesCache } from "../read-model/series-cache.js";
import { judgeGroupSteps } from "../evaluate/anomaly-judge.js";
import { runSteps } from "../event-loop/chunked.js";
import { seeLoads, type LoadChange, type LoadHistory } from "../evaluate/load-arrivals.js";
import type { TableParts } from "../plan/fingerprint-query.js";
import { judgeReading, readAnomalySeries, type ReadOptions } from "./anomaly-series.js";

export interface AnomalyScanInput {
  /** check key -> bucket starts (epoch ms) marked expected */
  feedback?: FeedbackIndex;
  /** the replica's series: a table unchanged since its held reading is judged again from it */
  cache?: Pick<SeriesCache, "latest">;
  /**
   * Incremental scans' hook: each table's fingerprint at the start of this scan (null: unknown,
   * read it). A group whose held reading carries the same fingerprint is not read again: it is
   * judged again at `now` (series-cache.ts rejudgeGroup); every reading is stamped with it.
   */
  fingerprints?: (datasource: string, table: string) => string | null;
  /** the clock for judging held readings again, unix seconds (default: this process's) */
  now?: number;
  /**
   * freshness_anomaly: each series' loads as the store kept them (by group id), the MergeTree
   * tables' active parts as this scan read them, and the clock loads are seen at (unix seconds;
   * default: the warehouse server's, from the cadence query). Absent: no history is kept (a
   * one-off CLI scan) and the rule says it is learning.
   */
  loads?: {
    histories: ReadonlyMap<string, LoadHistory>;
    partsOf?: (datasource: string, table: string) => TableParts | null;
    clock?: () => number;
    /** the clock of the scan that saw them last (a load not dated by its parts landed since) */
    previousScan?: number;
  };
}

export interface AnomalyScanOutcome {
  /** by group id: what the read path serves until the next scan */
  readings: ReadonlyMap<string, GroupReading>;
  flagged: FlaggedBucket[];
  /** checks whose series were scored */
  judged: string[];
  /** by check key: the scored series' verdicts, bucket by bucket */
  verdicts: ReadonlyMap<string, SeriesVerdicts>;
  /** series and cadence queries sent */
  queries: number;
  /** groups judged again from held readings instead of read */
  reused: number;
  /** freshness_anomaly: what changed in each series' loads (by group id), for the store */
  loads: Map<string, LoadChange>;
}

const NO_FEEDBACK: FeedbackIndex = new Map();

export async function readAnomaliesFor(
  tests: readonly InferredTest[],
  schema: WarehouseSchema,
  warehouses: ReadonlyMap<string, Warehouse>,
  options: Omit<ReadOptions, "reuse" | "fingerprintOf" | "onGroup"> & { anomalies?: AnomalyScanInput },
) {
  const started = performance.now();
  const { cache, fingerprints, now } = options.anomalies ?? {};
  const fingerprintOf = (group: SeriesGroup) => fingerprints?.(group.datasource, group.table) ?? null;
  const reuse = (group: SeriesGroup): GroupReading | null => {
    const fingerprint = fingerprintOf(group);
    const held = fingerprint === null ? undefined : cache?.latest(group.id);
    if (!held || held.reading.fingerprint !== fingerprint) return null;
    const again = rejudgeGroup(held.reading, group, now ?? Math.floor(Date.now() / 1000));
    return again && { ...again, fingerprint };
  };
  // Each group is judged as soon as its series are in, while the other groups' queries run.
  const feedback = options.anomalies?.feedback ?? NO_FEEDBACK;
  const judgements = new Map<string, AnomalyJudgement>();
  const loads = options.anomalies?.loads;
  const changes = new Map<string, LoadChange>();
  // One group judged at a time, in the order their series came in. Judged side by side, every
  // group whose series were in took its slice (runSteps' 20 ms) on each turn of the event loop:
  // an unchanged scan's hundred groups, all held, held the loop for 250-300 ms a turn.
  let judging: Promise<void> = Promise.resolve();
  const onGroup = (group: GroupReading) => {
    // Seen before judging: this scan's load counts for its own verdict.
    if (loads && group.group.cadenceTests.length > 0 && group.error === null && group.cadence !== null) {
      const { datasource, table, id } = group.group;
      const signal = { newest: group.cadence.newest, parts: loads.partsOf?.(datasource, table) ?? null };
      const at = loads.clock?.() ?? group.cadence.now;
      const seen = seeLoads(id, loads.histories.get(id), signal, at, loads.previousScan ?? null);
      if (seen.change) changes.set(id, seen.change);
      group.loads = { history: seen.history, now: at };
    }
    // A check at a time, the event loop handed back between them: judging a table's segments
    // in one go held it for most of a second.
    const judged = judging.then(() => runSteps(judgeGroupSteps(group, feedback, judgements)));
    judging = judged.catch(() => {});
    return judged;
  };
  const reading = await readAnomalySeries(tests, schema, warehouses, { ...options, reuse, fingerprintOf, onGroup });
  const seconds = (performance.now() - started) / 1000;
  let judged: Awaited<ReturnType<typeof judgeReading>> | null = null;
  return {
    /** wall-clock seconds the series took, judging included (part of the scan's warehouse time) */
    seconds,
    /** The anomaly checks' observations, to which the scan adds the rest. */
    async judge(): Promise<Map<string, CheckObservation>> {
      judged = await judgeReading(reading, feedback, judgements);
      return judged.observations;
    },
    outcome(): AnomalyScanOutcome {
      return {
        readings: reading.groups,
        flagged: judged?.flagged ?? [],
        judged: judged?.judged ?? [],
        verdicts: judged?.verdicts ?? new Map(),
        queries: reading.queries,
        reused: reading.reused,
        loads: changes,
      };
    },
  };
}
