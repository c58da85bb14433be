// The Store on Prisma: PostgreSQL when DATABASE_URL is set, else PGlite in the data directory.
// Every method rethrows failures as StoreError (clear, credential-free message); ping never throws.
import type { PrismaClient } from "../generated/prisma/client.js";
import type { Logger } from "../logger.js";
import { completeScanIn } from "./complete-scan.js";
import { toScanRecord, toStatusPeriod, toStoredStatus, toTestResult } from "./mapping.js";
import { openDatabase, type Database } from "./open-database.js";
import { guard, StoreError } from "./store-error.js";
import type { FinishedScan, ScanRecord, ScanTrigger, Store } from "./store.js";

export interface CreateStoreOptions {
  /** PostgreSQL URL; unset means embedded PGlite in `${dataDir}/pglite` */
  databaseUrl?: string | undefined;
  dataDir: string;
  logger?: Logger | undefined;
  /** defaults to this package's prisma/migrations */
  migrationsDir?: string | undefined;
}

export const ABORTED_ERROR = "aborted: the process running it stopped";
const PING_TIMEOUT_MS = 5_000;
const RESULT_ORDER = [{ metric: "asc" }, { rule: "asc" }, { name: "asc" }, { id: "asc" }] as const;

/** Opens the database, applies pending migrations, and returns the store. */
export async function createStore(options: CreateStoreOptions): Promise<Store> {
  const database = await openDatabase(options);
  const { applied, alreadyApplied } = database.migrations;
  options.logger?.info({ store: database.kind, applied, alreadyApplied }, "store ready");
  return new PrismaStore(database);
}

class PrismaStore implements Store {
  private readonly db: PrismaClient;
  private closing: Promise<void> | null = null;

  constructor(private readonly database: Database) {
    this.db = database.prisma;
  }

  abortOrphanedScans(staleBefore: Date): Promise<number> {
    return guard("abortOrphanedScans", async () => {
      const { count } = await this.db.scan.updateMany({
        where: {
          status: "running",
          OR: [{ heartbeatAt: { lt: staleBefore } }, { heartbeatAt: null, startedAt: { lt: staleBefore } }],
        },
        data: { status: "aborted", finishedAt: new Date(), error: ABORTED_ERROR },
      });
      return count;
    });
  }

  heartbeatScan(scanId: string, at: Date): Promise<void> {
    return guard("heartbeatScan", async () => {
      await this.db.scan.updateMany({ where: { id: scanId, status: "running" }, data: { heartbeatAt: at } });
    });
  }

  createScan(scan: { scan_id: string; trigger: ScanTrigger; started_at: Date }): Promise<ScanRecord> {
    return guard("createScan", async () =>
      toScanRecord(await this.db.scan.create({ data: { id: scan.scan_id, trigger: scan.trigger, status: "running", startedAt: scan.started_at, heartbeatAt: scan.started_at } })),
    );
  }

  completeScan(scan: FinishedScan): Promise<ScanRecord> {
    return guard("completeScan", () => this.db.$transaction((tx) => completeScanIn(tx, scan)));
  }

  failScan(scanId: string, finishedAt: Date, error: string): Promise<ScanRecord> {
    return guard("failScan", async () => {
      // Only an unfinished scan can fail; a finished one is returned as it is.
      await this.db.scan.updateMany({
        where: { id: scanId, status: { in: ["running", "aborted"] } },
        data: { status: "failed", finishedAt, error },
      });
      const row = await this.db.scan.findUnique({ where: { id: scanId } });
      if (!row) throw new StoreError(`scan ${scanId} not found`);
      return toScanRecord(row);
    });
  }

  getScan(scanId: string): Promise<ScanRecord | null> {
    return guard("getScan", async () => {
      const row = await this.db.scan.findUnique({ where: { id: scanId } });
      return row ? toScanRecord(row) : null;
    });
  }

  getRunningScan(): Promise<ScanRecord | null> {
    return guard("getRunningScan", async () => {
      const row = await this.db.scan.findFirst({ where: { status: "running" }, orderBy: [{ startedAt: "desc" }, { id: "desc" }] });
      return row ? toScanRecord(row) : null;
    });
  }

  latestStatuses() {
    return guard("latestStatuses", async () => (await this.db.metricStatus.findMany({ orderBy: { metric: "asc" } })).map(toStoredStatus));
  }

  latestStatus(metric: string) {
    return guard("latestStatus", async () => {
      const row = await this.db.metricStatus.findUnique({ where: { metric } });
      return row ? toStoredStatus(row) : null;
    });
  }

  statusHistory(metric: string, limit: number) {
    return guard("statusHistory", async () => {
      const take = Math.max(0, Math.floor(limit));
      if (take === 0) return [];
      const rows = await this.db.statusChange.findMany({ where: { metric }, orderBy: [{ from: "desc" }, { id: "desc" }], take });
      return rows.map(toStatusPeriod);
    });
  }

  latestResults() {
    return guard("latestResults", async () => {
      const scan = await this.newestSucceededScan();
      if (!scan) return null;
      const rows = await this.db.testResult.findMany({ where: { scanId: scan.id }, orderBy: [...RESULT_ORDER] });
      return { scan: toScanRecord(scan), results: rows.map(toTestResult) };
    });
  }

  latestResultsFor(metric: string) {
    return guard("latestResultsFor", async () => {
      // Results exist only for succeeded scans (completeScan writes both in one transaction).
      const newest = await this.db.testResult.findFirst({
        where: { metric, scan: { status: "succeeded" } },
        orderBy: [{ scan: { finishedAt: "desc" } }, { scanId: "desc" }],
        select: { scanId: true },
      });
      if (!newest) return [];
      const rows = await this.db.testResult.findMany({ where: { metric, scanId: newest.scanId }, orderBy: [...RESULT_ORDER] });
      return rows.map(toTestResult);
    });
  }

  claimRun(name: string, fireTime: Date): Promise<boolean> {
    // createMany + skipDuplicates is INSERT ... ON CONFLICT DO NOTHING: the count says who won.
    return guard("claimRun", async () => (await this.db.runClaim.createMany({ data: [{ name, fireTime }], skipDuplicates: true })).count === 1);
  }

  prune(before: Date): Promise<void> {
    return guard("prune", async () => {
      // Keep the newest succeeded scan (latestResults) and every scan a current status points at,
      // so a status that is still shown keeps the test results that explain it.
      const newest = await this.newestSucceededScan();
      const current = await this.db.metricStatus.findMany({ select: { scanId: true }, distinct: ["scanId"] });
      const keep = [...new Set([...(newest ? [newest.id] : []), ...current.map((s) => s.scanId)])];
      await this.db.$transaction([
        this.db.scan.deleteMany({ where: { finishedAt: { lt: before }, id: { notIn: keep } } }),
        this.db.statusChange.deleteMany({ where: { to: { lt: before } } }),
        this.db.runClaim.deleteMany({ where: { claimedAt: { lt: before } } }),
      ]);
    });
  }

  async ping(): Promise<boolean> {
    if (this.closing) return false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
      timer.unref();
    });
    const query = this.db.$queryRawUnsafe("SELECT 1").then(
      () => true,
      () => false,
    );
    try {
      return await Promise.race([query, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    this.closing ??= this.database.close().catch(() => undefined);
    return this.closing;
  }

  private newestSucceededScan() {
    return this.db.scan.findFirst({ where: { status: "succeeded" }, orderBy: [{ finishedAt: "desc" }, { id: "desc" }] });
  }
}
