// What a scan starts from, read before the warehouse is: the catalogue version written ahead,
// the last pass (incremental scans), the feedback on anomaly buckets and freshness_anomaly's
// loads; and the options executeScan runs with, built from them (plain values).
import { feedbackIndex, type FeedbackIndex } from "../evaluate/anomaly-observation.js";
import type { CatalogFindings } from "../infer/catalog-findings.js";
import type { Judgement } from "./judge-metrics.js";
import type { PreviousCheck } from "../evaluate/check-pass.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import type { Logger } from "../logger.js";
import type { SeriesCache } from "../read-model/series-cache.js";
import type { Store } from "../store/store.js";
import type { ExecuteOptions } from "./execute-scan.js";
import type { IncrementalInput } from "./incremental.js";
import type { KnownLoads, LoadMemory, NewestScan, PassMemory } from "./replica-memory.js";

export interface ScanInputs {
  /** settles once the catalogue version is in the store (or writing it failed: completeScan writes it then) */
  catalogWritten: Promise<void>;
  /** incremental scans: the last pass; null: a full scan */
  previous: Map<string, PreviousCheck> | null;
  /** buckets people marked "expected": back into training, never alerting */
  feedback: FeedbackIndex;
  loads: KnownLoads | null;
  /** the loads' clock at the scan's start, unix seconds */
  clock: number;
}

export async function readScanInputs(
  sources: {
    store: Pick<Store, "writeCatalogVersion" | "anomalyFeedback" | "newestSucceededScan">;
    passes: PassMemory | null;
    loads: LoadMemory;
    loadClock: () => number;
  },
  snapshot: CatalogSnapshot,
  log: Pick<Logger, "warn">,
): Promise<ScanInputs> {
  // A new catalogue version's checks and test definitions (about 130,000 rows at 10,000 metrics)
  // go to the store while the warehouse is read, not in completeScan's transaction, which writes
  // them itself if this failed.
  const catalogWritten = sources.store
    .writeCatalogVersion({ version: snapshot.version, tests: snapshot.tests })
    .catch((error: unknown) => log.warn({ err: error }, "writing the catalogue version at the scan's start failed"));
  let newest: ReturnType<NewestScan> | undefined;
  const newestScan: NewestScan = () => (newest ??= sources.store.newestSucceededScan());
  const previous = sources.passes ? await sources.passes.previous(newestScan) : null;
  const feedback = feedbackIndex(await sources.store.anomalyFeedback());
  const loads = await sources.loads.read(snapshot, newestScan);
  return { catalogWritten, previous, feedback, loads, clock: sources.loadClock() };
}

export interface ExecuteSettings {
  scanId: string;
  concurrency: number;
  maxQuerySize: number;
  signal: AbortSignal;
  onQuery: (seconds: number) => void;
  seriesCache?: SeriesCache;
  /** set by tests: the clock loads are seen at */
  loadClock?: () => number;
  /** incremental scans: the identities' cache for this snapshot */
  reuseCache?: IncrementalInput["cache"];
  /** what earlier checks found about the catalogue (SQL fragments already asked) */
  findings?: CatalogFindings;
  /** the last succeeded scan's judgement (judge-metrics.ts) */
  lastJudgement?: Judgement | null;
}

/** executeScan's options for one scan. */
export function executeOptions(settings: ExecuteSettings, inputs: ScanInputs): ExecuteOptions {
  const { loads, previous } = inputs;
  return {
    scanId: settings.scanId,
    concurrency: settings.concurrency,
    maxQuerySize: settings.maxQuerySize,
    signal: settings.signal,
    onQuery: settings.onQuery,
    anomalies: {
      feedback: inputs.feedback,
      ...(settings.seriesCache ? { cache: settings.seriesCache } : {}),
      ...(loads
        ? {
            loads: {
              histories: loads.histories,
              ...(settings.loadClock ? { clock: settings.loadClock } : {}),
              ...(loads.clock !== null ? { previousScan: loads.clock } : {}),
            },
          }
        : {}),
    },
    ...(previous ? { incremental: { previous, ...(settings.reuseCache ? { cache: settings.reuseCache } : {}) } } : {}),
    ...(settings.findings ? { findings: settings.findings } : {}),
    ...(settings.lastJudgement ? { lastJudgement: settings.lastJudgement } : {}),
  };
}
