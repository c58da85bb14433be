// The services as the daemon wires them: the read model, the scan service that feeds it, the
// services the transports call (cached once around them) and the gauges that follow the view.
// main.ts builds its daemon from this, and so do the tests that need the daemon's services
// without its HTTP server or timers, so a test cannot drift from how the daemon is put together.
// Part of the composition root beside main.ts (not in services/, which imports no scan runner
// and no warehouse).
import type { CatalogSnapshot } from "./infer/catalog-snapshot.js";
import { createFindingsHolder, type FindingsHolder } from "./infer/catalog-findings.js";
import type { Logger } from "./logger.js";
import { createMetrics, type Metrics } from "./metrics/prometheus.js";
import { createFreshness, type Freshness } from "./read-model/freshness.js";
import { createReadModel, type ReadModel } from "./read-model/read-model.js";
import { createSeriesCache } from "./read-model/series-cache.js";
import { createScanService, type ScanServiceOptions } from "./scan/scan-service.js";
import type { ScanService } from "./scan/types.js";
import type { Store } from "./store/store.js";
import type { Warehouse } from "./warehouse/warehouse.js";
import { createAnomalyService } from "./services/anomaly-service.js";
import { createBrowseService, type BrowseService } from "./services/browse-service.js";
import { cachedServices } from "./services/cached-services.js";
import { createCompilerService } from "./services/compiler-service.js";
import { createReliabilityService } from "./services/reliability-service.js";
import type { Services } from "./services/types.js";
import { createValidationService } from "./services/validation-service.js";

export interface ServicesOptions {
  getSnapshot: () => CatalogSnapshot;
  /** what the warehouse told about the catalogue (the check at start fills it too); a new holder when not given */
  findings?: FindingsHolder;
  warehouses: ReadonlyMap<string, Warehouse>;
  store: Store;
  logger: Logger;
  /** the daemon's registry; a new one when not given */
  metrics?: Metrics;
  /** status periods each metric keeps in memory */
  historyLimit: number;
  /** the scan service's settings (SCAN_CONCURRENCY, MAX_QUERY_SIZE, ...) */
  scan: Pick<ScanServiceOptions, "concurrency" | "maxQuerySize" | "retentionDays" | "incremental" | "owner" | "loadClock">;
  /** after each refresh of the read model that changed the view */
  onRefreshed?: (how: "reload" | "delta", ms: number) => void;
}

export interface DaemonServices {
  metrics: Metrics;
  readModel: ReadModel;
  scanService: ScanService;
  /** what the transports call: answers the same for every caller serialised once per view / snapshot */
  services: Services;
  /** the same services without that cache (tests compare the two) */
  uncached: Services;
  /** the pages' reads */
  browse: BrowseService;
  /** `min_scan`: a view at least as new as a given scan */
  freshness: Freshness;
}

export function createServices(options: ServicesOptions): DaemonServices {
  const { getSnapshot, warehouses, store, logger } = options;
  const findings = options.findings ?? createFindingsHolder();
  const getFindings = findings.current;
  const metrics = options.metrics ?? createMetrics();
  const readModel = createReadModel({
    store,
    getSnapshot,
    getFindings,
    historyLimit: options.historyLimit,
    logger,
    onRefreshed: options.onRefreshed,
  });
  const scanService = createScanService({
    ...options.scan,
    getSnapshot,
    findings,
    warehouses,
    store,
    metrics,
    logger,
    // The scan's own write is applied to the view before the scan counts as done.
    afterScan: (write) => readModel.applyScan(write),
    currentObservations: () => readModel.view().observations,
    seriesCache: createSeriesCache(),
    heldVerdicts: () => readModel.verdicts.held(),
    heldView: () => {
      const view = readModel.view();
      return { scanId: view.scan?.scan_id ?? null, statuses: view.statuses, observations: view.observations };
    },
  });
  const reliability = createReliabilityService({ readModel, store, scanService });
  const uncached: Services = {
    validation: createValidationService({ getSnapshot, getFindings, scanService }),
    compiler: createCompilerService({ getSnapshot, getFindings }),
    reliability,
    anomalies: createAnomalyService({ readModel, store, logger }),
  };
  const services = cachedServices(uncached, { readModel, getSnapshot, getFindings });
  // /metrics follows the read model: every new view (own scan, another replica's) resets the gauges,
  // from the view's cached status listing (so it is serialised at once, not by the first request).
  readModel.onChange(() => {
    reliability
      .refreshMetrics(metrics, () => services.reliability.status())
      .catch((error: unknown) => logger.warn({ err: error }, "refreshing Prometheus gauges failed"));
  });
  return {
    metrics,
    readModel,
    scanService,
    services,
    uncached,
    browse: createBrowseService({ readModel, store }),
    freshness: createFreshness({ readModel, store }),
  };
}
