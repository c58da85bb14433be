// The anomaly part of a scan, as execute-scan.ts calls it: read the series (warehouse time),
// then judge them with the feedback (evaluate time), and hand the scan service what the store
// and the read path keep: the flagged buckets and the readings.
import type { FeedbackIndex } from "../evaluate/anomaly-observation.js";
import type { GroupReading } from "../evaluate/series-values.js";
import type { CheckObservation } from "../evaluate/types.js";
import type { InferredTest } from "../infer/types.js";
import type { SeriesGroup } from "../plan/series-query.js";
import type { WarehouseSchema } from "../plan/types.js";
import type { FlaggedBucket } from "../store/store.js";
import type { Warehouse } from "../warehouse/warehouse.js";
import { judgeReading, readAnomalySeries, type ReadOptions } from "./anomaly-series.js";

export interface AnomalyScanInput {
  /** check key -> bucket starts (epoch ms) marked expected */
  feedback?: FeedbackIndex;
  /** incremental scans: the held reading of a group whose table did not change, judged again (series-cache.ts rejudgeGroup) */
  reuse?: (group: SeriesGroup) => GroupReading | null;
}

export interface AnomalyScanOutcome {
  /** by group id: what the read path serves until the next scan */
  readings: ReadonlyMap<string, GroupReading>;
  flagged: FlaggedBucket[];
  /** checks whose series were scored */
  judged: string[];
  /** series and cadence queries sent */
  queries: number;
}

const NO_FEEDBACK: FeedbackIndex = new Map();

export async function readAnomaliesFor(
  tests: readonly InferredTest[],
  schema: WarehouseSchema,
  warehouses: ReadonlyMap<string, Warehouse>,
  options: Omit<ReadOptions, "reuse"> & { anomalies?: AnomalyScanInput },
) {
  const started = performance.now();
  const reuse = options.anomalies?.reuse;
  const reading = await readAnomalySeries(tests, schema, warehouses, { ...options, ...(reuse ? { reuse } : {}) });
  const seconds = (performance.now() - started) / 1000;
  let judged: Awaited<ReturnType<typeof judgeReading>> | null = null;
  return {
    /** wall-clock seconds the series took (part of the scan's warehouse time) */
    seconds,
    /** The anomaly checks' observations, to which the scan adds the rest. */
    async judge(): Promise<Map<string, CheckObservation>> {
      judged = await judgeReading(reading, options.anomalies?.feedback ?? NO_FEEDBACK);
      return judged.observations;
    },
    outcome(): AnomalyScanOutcome {
      return { readings: reading.groups, flagged: judged?.flagged ?? [], judged: judged?.judged ?? [], queries: reading.queries };
    },
  };
}
