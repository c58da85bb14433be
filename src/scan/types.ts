import type { MetricStatus } from "../derive/types.js";
import type { CheckObservation } from "../evaluate/types.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import type { FindingsHolder } from "../infer/catalog-findings.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics/prometheus.js";
import type { ScanWrite } from "../read-model/apply-scan.js";
import type { SeriesCache } from "../read-model/series-cache.js";
import type { HeldVerdicts } from "../read-model/verdict-holder.js";
import type { ScanOwner, ScanRecord, ScanTrigger, Store } from "../store/store.js";
import type { Warehouse } from "../warehouse/warehouse.js";

export interface ScanService {
  /** Starts a scan, or joins the one already running (coalesced: true). Returns at once. */
  trigger(trigger: ScanTrigger): Promise<{ scan: ScanRecord; coalesced: boolean }>;
  /** Resolves with the scan's final record once it has finished (or at once if it has). */
  wait(scanId: string): Promise<ScanRecord>;
  /** trigger + wait, returning the finished scan's observations (POST /v1/semantic-tests/run). */
  run(trigger: ScanTrigger): Promise<{ scan: ScanRecord; observations: ReadonlyMap<string, CheckObservation> }>;
  /** Cancels the running scan's warehouse queries and waits for it to settle. */
  stop(): Promise<void>;
}

export interface ScanServiceOptions {
  getSnapshot: () => CatalogSnapshot;
  /** what the warehouse told about the catalogue: each scan starts from it and replaces it */
  findings?: FindingsHolder;
  warehouses: ReadonlyMap<string, Warehouse>;
  store: Store;
  metrics: Metrics;
  logger: Logger;
  concurrency: number;
  maxQuerySize: number;
  retentionDays: number;
  /** SCAN_INCREMENTAL: checks on tables unchanged since the last pass keep its results (main.ts: on unless turned off) */
  incremental?: boolean;
  /** after a scan is stored, with what it wrote: the read model applies it (or reloads from the store) */
  afterScan?: (write: ScanWrite) => Promise<unknown>;
  /** the observations the replica serves, for a run that joined a scan it did not start */
  currentObservations?: () => ReadonlyMap<string, CheckObservation>;
  /** recorded with each scan, so a restarted process can abort its predecessor's (scan/orphans.ts) */
  owner?: ScanOwner;
  /** where a succeeded scan leaves its anomaly series (an unchanged table's are judged again from them) */
  seriesCache?: SeriesCache;
  /**
   * The clock freshness_anomaly sees loads at, unix seconds (default: the warehouse server's).
   * Tests set it to play days of loads in minutes.
   */
  loadClock?: () => number;
  /** the verdicts the read model holds (read-model/verdict-holder.ts): the basis of the scan's verdicts write */
  heldVerdicts?: () => HeldVerdicts;
  /** the statuses and check results the read model holds, as of its scan: the basis of the scan's write of them */
  heldView?: () => HeldView;
}

/** The statuses and check results a replica's view holds, and the scan they are of (null: none). */
export interface HeldView {
  scanId: string | null;
  statuses: ReadonlyMap<string, MetricStatus>;
  observations: ReadonlyMap<string, CheckObservation>;
}
