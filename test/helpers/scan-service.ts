// The real scan service over one real warehouse, with the settings the service tests share, and
// the read model it feeds (as main.ts wires them); or the daemon's whole set of services
// (createServices, as main.ts builds them) with those settings.
import pino from "pino";
import { createMetrics } from "../../src/metrics/prometheus.js";
import { createReadModel, type ReadModel } from "../../src/read-model/read-model.js";
import { createScanService, type ScanServiceOptions } from "../../src/scan/scan-service.js";
import { createServices, type DaemonServices, type ServicesOptions } from "../../src/create-services.js";
import type { ScanService } from "../../src/scan/types.js";
import type { CatalogSnapshot } from "../../src/infer/catalog-snapshot.js";
import type { Store } from "../../src/store/store.js";
import type { Warehouse } from "../../src/warehouse/warehouse.js";

export function testScanService(
  store: Store,
  warehouse: Warehouse,
  getSnapshot: () => CatalogSnapshot,
  readModel?: ReadModel,
  overrides: Partial<ScanServiceOptions> = {},
): ScanService {
  return createScanService({
    getSnapshot,
    warehouses: new Map([["default", warehouse]]),
    store,
    metrics: createMetrics(),
    logger: pino({ level: "silent" }),
    concurrency: 2,
    maxQuerySize: 262_144,
    retentionDays: 30,
    ...(readModel
      ? {
          afterScan: (write) => readModel.applyScan(write),
          currentObservations: () => readModel.view().observations,
          heldVerdicts: () => readModel.verdicts.held(),
        }
      : {}),
    ...overrides,
  });
}

export function testReadModel(store: Store, getSnapshot: () => CatalogSnapshot, historyLimit = 50): ReadModel {
  return createReadModel({ store, getSnapshot, historyLimit });
}

/** The daemon's services (src/create-services.ts) over one warehouse, with the tests' settings. */
export function testServices(
  store: Store,
  warehouse: Warehouse,
  getSnapshot: () => CatalogSnapshot,
  overrides: Partial<ServicesOptions> = {},
): DaemonServices {
  return createServices({
    getSnapshot,
    warehouses: new Map([["default", warehouse]]),
    store,
    logger: pino({ level: "silent" }),
    historyLimit: 50,
    scan: { concurrency: 2, maxQuerySize: 262_144, retentionDays: 30 },
    ...overrides,
  });
}
