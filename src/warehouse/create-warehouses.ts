// One Warehouse per configured datasource. Without a "default" datasource (no CLICKHOUSE_URL)
// the embedded engine serves "default", re-seeded with the demo shop at every start: the demo
// timestamps are relative to the seed time, so re-seeding keeps freshness meaningful.
import type { Config } from "../config/config.js";
import type { Logger } from "../logger.js";
import { createEmbeddedWarehouse } from "./chdb-engine.js";
import { createServerWarehouse, displayUrl } from "./clickhouse-server.js";
import { seedDemoDataset } from "./demo-dataset.js";
import { DEFAULT_RETRY, withRetries } from "./retrying.js";
import type { Warehouse } from "./warehouse.js";

type WarehouseConfig = Pick<Config, "datasources" | "DATA_DIR" | "QUERY_TIMEOUT_SECONDS"> & Partial<Pick<Config, "CLICKHOUSE_LOG_QUERIES">>;

export async function createWarehouses(config: WarehouseConfig, logger: Logger): Promise<Map<string, Warehouse>> {
  const warehouses = new Map<string, Warehouse>();
  for (const source of config.datasources) {
    const log = logger.child({ datasource: source.name });
    const server = createServerWarehouse({
      ...source,
      timeoutSeconds: config.QUERY_TIMEOUT_SECONDS,
      logQueries: config.CLICKHOUSE_LOG_QUERIES ?? false,
      logger: log,
    });
    warehouses.set(
      source.name,
      withRetries(server, { ...DEFAULT_RETRY, timeoutSeconds: config.QUERY_TIMEOUT_SECONDS }, ({ queryId, attempt, error }) =>
        log.warn({ queryId, attempt, reason: error.message }, "transient warehouse error; retrying"),
      ),
    );
    logger.info({ datasource: source.name, url: displayUrl(source.url) }, "ClickHouse server datasource");
  }
  if (!warehouses.has("default")) {
    const embedded = await createEmbeddedWarehouse({
      name: "default",
      dataDir: config.DATA_DIR,
      timeoutSeconds: config.QUERY_TIMEOUT_SECONDS,
      logger: logger.child({ datasource: "default" }),
    });
    try {
      const started = Date.now();
      await seedDemoDataset((sql) => embedded.exec(sql));
      logger.info({ datasource: "default", ms: Date.now() - started }, "embedded ClickHouse seeded with the demo shop dataset");
    } catch (error) {
      await embedded.close();
      throw error;
    }
    warehouses.set("default", embedded);
  }
  return warehouses;
}
