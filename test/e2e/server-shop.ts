// The demo catalogue (demo/metrics) reads database `shop`, and a daemon with CLICKHOUSE_URL does
// not seed, so the server e2e suites seed `shop` on the ClickHouse server themselves.
//
// Several suites (vitest workers, or two CI jobs on one server) share that one database, and
// seeding is drop-and-recreate, so it is coordinated through a PostgreSQL advisory lock on the
// admin database (DATABASE_URL):
// - a suite holds the lock SHARED for as long as its daemons read `shop`;
// - seeding needs it EXCLUSIVE, so it never drops tables under a running suite;
// - a suite seeds only when `shop` is missing, incomplete, or older than MAX_AGE_SECONDS, so
//   suites that start together seed once, and the others just take the shared lock.
import { setTimeout as sleep } from "node:timers/promises";
import { PrismaPg } from "@prisma/adapter-pg";
import { createServerWarehouse, execServer, type ServerConnection } from "../../src/warehouse/clickhouse-server.js";
import { DEMO_DATABASE, demoDatasetStatements } from "../../src/warehouse/demo-dataset.js";

/** pg_advisory_lock key of the shared `shop` database ("mr" + "shop"). */
const SHOP_LOCK_KEY = 7_277_061;
/** Younger data gives the same statuses and messages as a fresh seed (see demo/README.md). */
const MAX_AGE_SECONDS = 3600;
const ROW_COUNTS = { customers: "301", products: "50", orders: "5000", refunds: "300", sessions: "2000", inventory: "1000" };

/** True when every demo table is there with its documented row count, seeded at most an hour ago. */
async function shopIsFresh(conn: ServerConnection): Promise<boolean> {
  const warehouse = createServerWarehouse({ ...conn, name: "default", timeoutSeconds: 30 });
  try {
    const counts = Object.keys(ROW_COUNTS).map((t) => `(SELECT count() FROM ${DEMO_DATABASE}.${t}) AS ${t}`);
    const age = `(SELECT toUInt64(now()) - toUInt64(max(created_at)) FROM ${DEMO_DATABASE}.orders) AS age`;
    // The anomaly tables' rows depend on the day of seeding (the planted days are "2 days ago" and
    // "yesterday"): they must exist, seeded on the current UTC day.
    const anomalies = ["deliveries", "payouts", "web_orders"].map((t) => `(SELECT count() > 0 FROM ${DEMO_DATABASE}.${t})`);
    const today = `(SELECT intDiv(toUInt32(max(created_at)), 86400) = intDiv(toUInt32(now()), 86400) FROM ${DEMO_DATABASE}.orders) AS today`;
    const [row] = await warehouse.query(`SELECT ${counts.join(", ")}, ${age}, ${anomalies.join(" + ")} AS anomaly_tables, ${today}`, {
      queryId: `e2e-shop-check-${Date.now()}`,
    });
    if (!row) return false;
    const { age: seconds, anomaly_tables: anomalyTables, today: seededToday, ...rest } = row;
    return (
      JSON.stringify(rest) === JSON.stringify(ROW_COUNTS) &&
      Number(seconds) < MAX_AGE_SECONDS &&
      Number(anomalyTables) === anomalies.length &&
      Number(seededToday) === 1
    );
  } catch {
    return false; // a missing database or table: seed
  } finally {
    await warehouse.close();
  }
}

/**
 * Makes sure `shop` holds the demo dataset and keeps it from being re-seeded until the
 * returned release function is called (after the suite's last daemon stopped).
 */
export async function holdDemoShop(adminUrl: string, conn: ServerConnection): Promise<() => Promise<void>> {
  const adapter = await new PrismaPg({ connectionString: adminUrl }).connect();
  const client = await adapter.underlyingDriver().connect();
  const lock = (fn: string) => client.query(`SELECT ${fn}($1::bigint) AS ok`, [SHOP_LOCK_KEY]);
  const release = async () => {
    await lock("pg_advisory_unlock_shared").catch(() => undefined);
    client.release();
    await adapter.dispose();
  };
  try {
    for (;;) {
      await lock("pg_advisory_lock_shared");
      if (await shopIsFresh(conn)) return release;
      await lock("pg_advisory_unlock_shared");
      // Exclusive only when no suite is reading; otherwise look again shortly (it may have seeded).
      const { rows } = await lock("pg_try_advisory_lock");
      if (rows[0]?.ok === true) {
        try {
          if (!(await shopIsFresh(conn))) await execServer(conn, demoDatasetStatements(DEMO_DATABASE));
          // A session's own locks never conflict, so this is granted while we hold exclusive.
          await lock("pg_advisory_lock_shared");
        } finally {
          await lock("pg_advisory_unlock");
        }
        return release;
      }
      await sleep(100 + Math.floor(Math.random() * 200));
    }
  } catch (error) {
    await release();
    throw error;
  }
}
