// The Store on Prisma: PostgreSQL when DATABASE_URL is set, else PGlite in the data directory.
// Every method rethrows failures as StoreError (clear, credential-free message); ping never throws.
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client.js";
import type { Logger } from "../logger.js";
import { insertAnomalyFeedback, readAnomalyBuckets, readAnomalyFeedback } from "./anomaly-store.js";
import { readPasses } from "./check-passes.js";
import { notifyChange, openChangeFeed, SESSION_LOCK_CLASS, type ChangeFeed, type ChangeHandlers } from "./change-feed.js";
import { readLoads } from "./arrival-store.js";
import { ensureCatalogVersion } from "./catalog-version.js";
import { completeScanIn } from "./complete-scan.js";
import type { OpenIncidentsMemo } from "./incident-store.js";
import { readAnomalyVerdicts, upsertVerdicts } from "./anomaly-verdicts.js";
import type { SeriesVerdicts } from "../evaluate/series-verdicts.js";
import { toScanRecord, toStatusPeriod, toStoredStatus } from "./mapping.js";
import { openDatabase, type Database } from "./open-database.js";
import type { Sql } from "./sql-session.js";
import { newestSucceededScan, readStateIn, readStatuses } from "./read-state.js";
import { readScanDeltaIn } from "./read-delta.js";
import { guard, StoreError } from "./store-error.js";
import type {
  AnomalyFeedbackRecord,
  FinishedScan,
  RunningScanOwner,
  ScanOwner,
  ScanRecord,
  ScanTrigger,
  SessionRevocation,
  Store,
} from "./store.js";

export interface CreateStoreOptions {
  /** PostgreSQL URL; unset means embedded PGlite in `${dataDir}/pglite` */
  databaseUrl?: string | undefined;
  dataDir: string;
  logger?: Logger | undefined;
  /** defaults to this package's prisma/migrations */
  migrationsDir?: string | undefined;
  /** how long completeScan's transaction may run (STORE_TRANSACTION_TIMEOUT_SECONDS) */
  transactionTimeoutMs?: number | undefined;
  /** the clock that stamps finished_at; tests pin it */
  now?: (() => Date) | undefined;
}

export const ABORTED_ERROR = "aborted: the process running it stopped";
const PING_TIMEOUT_MS = 5_000;
const DEFAULT_TRANSACTION_TIMEOUT_MS = 60_000;

/** Opens the database, applies pending migrations, and returns the store. */
export async function createStore(options: CreateStoreOptions): Promise<Store> {
  return storeOn(await openDatabase(options), options);
}

/** The store on a database already opened (and migrated) by openDatabase; closing it closes the database. */
export function storeOn(database: Database, options: Omit<CreateStoreOptions, "dataDir" | "migrationsDir">): Store {
  const { applied, alreadyApplied } = database.migrations;
  options.logger?.info({ store: database.kind, applied, alreadyApplied }, "store ready");
  return new PrismaStore(
    database,
    options.transactionTimeoutMs ?? DEFAULT_TRANSACTION_TIMEOUT_MS,
    options.now ?? (() => new Date()),
    database.kind === "postgres" ? options.databaseUrl : undefined,
    options.logger,
  );
}

class PrismaStore implements Store {
  private readonly db: PrismaClient;
  private closing: Promise<void> | null = null;
  private feed: ChangeFeed | null = null;
  /** prune has swept checks no catalogue version uses since this store opened */
  private checksSwept = false;
  /** the open incidents as this store last wrote them (incident-store.ts: checked against the store at each scan) */
  private readonly openIncidents: OpenIncidentsMemo = { current: null };
  /** names this store's writes in change notifications */
  readonly origin = randomUUID();

  constructor(
    private readonly database: Database,
    private readonly transactionTimeoutMs: number,
    private readonly now: () => Date,
    /** PostgreSQL only: where the change listener connects */
    private readonly listenUrl: string | undefined,
    private readonly logger: Logger | undefined,
  ) {
    this.db = database.prisma;
  }

  watch(handlers: ChangeHandlers): ChangeFeed | null {
    if (!this.listenUrl) return null;
    if (this.feed) throw new StoreError("the store is already watched");
    // This store's own writes are the caller's to apply (a scan: the read model already has it).
    this.feed = openChangeFeed(
      this.listenUrl,
      { ...handlers, onChange: (change) => handlers.onChange({ ...change, own: change.origin === this.origin }) },
      this.logger,
    );
    return this.feed;
  }

  abortScansOfLostSessions(): Promise<number> {
    if (!this.listenUrl) return Promise.resolve(0);
    return guard("abortScansOfLostSessions", async () => {
      // pg_locks shows every session's locks to every role: an owner's key missing there means
      // PostgreSQL closed its connection (the process is gone, or cut off from the store).
      const { rows } = await this.database.sessions.transaction({ timeoutMs: this.transactionTimeoutMs }, (sql) =>
        sql(
          `UPDATE "scans" s SET "status" = 'aborted', "finished_at" = now(), "error" = $2
            WHERE s."status" = 'running' AND s."owner_session_key" IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM pg_locks l
                               WHERE l."locktype" = 'advisory' AND l."granted" AND l."classid" = $1::oid
                                 AND l."objid" = s."owner_session_key"::oid AND l."objsubid" = 2
                                 AND l."database" = (SELECT "oid" FROM pg_database WHERE "datname" = current_database()))
            RETURNING s."id"`,
          [SESSION_LOCK_CLASS, ABORTED_ERROR],
        ),
      );
      return rows.length;
    });
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

  runningScanOwners(): Promise<RunningScanOwner[]> {
    return guard("runningScanOwners", async () => {
      const rows = await this.db.scan.findMany({
        where: { status: "running" },
        select: { id: true, ownerHost: true, ownerPid: true, ownerStartedAt: true },
        orderBy: { startedAt: "asc" },
      });
      return rows.map((row) => ({
        scan_id: row.id,
        owner:
          row.ownerHost === null || row.ownerPid === null || row.ownerStartedAt === null
            ? null
            : { host: row.ownerHost, pid: row.ownerPid, process_started_at: row.ownerStartedAt },
      }));
    });
  }

  abortScans(scanIds: readonly string[]): Promise<number> {
    if (scanIds.length === 0) return Promise.resolve(0);
    return guard("abortScans", async () => {
      const { count } = await this.db.scan.updateMany({
        where: { id: { in: [...scanIds] }, status: "running" },
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

  createScan(scan: { scan_id: string; trigger: ScanTrigger; started_at: Date; owner?: ScanOwner }): Promise<ScanRecord> {
    const { owner } = scan;
    return guard("createScan", async () =>
      toScanRecord(
        await this.db.scan.create({
          data: {
            id: scan.scan_id,
            trigger: scan.trigger,
            status: "running",
            startedAt: scan.started_at,
            heartbeatAt: scan.started_at,
            ...(owner ? { ownerHost: owner.host, ownerPid: owner.pid, ownerStartedAt: owner.process_started_at } : {}),
            // Set only while this process's listener holds its lock: peers may then abort the scan
            // as soon as that lock goes (abortScansOfLostSessions).
            ownerSession: this.feed?.sessionKey() ?? null,
          },
        }),
      ),
    );
  }

  writeCatalogVersion(catalog: FinishedScan["catalog"]): Promise<void> {
    return guard("writeCatalogVersion", () =>
      this.database.sessions.transaction({ timeoutMs: this.transactionTimeoutMs }, (sql) =>
        ensureCatalogVersion(sql, catalog.version, catalog.tests, this.now(), this.origin),
      ),
    );
  }

  completeScan(scan: FinishedScan): Promise<ScanRecord> {
    return guard("completeScan", () =>
      this.database.sessions.transaction({ timeoutMs: this.transactionTimeoutMs }, (sql) =>
        completeScanIn(sql, scan, this.now, this.origin, this.openIncidents),
      ),
    );
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

  recentScans(limit: number): Promise<ScanRecord[]> {
    return guard("recentScans", async () => {
      const rows = await this.db.scan.findMany({ orderBy: [{ startedAt: "desc" }, { id: "desc" }], take: limit });
      return rows.map(toScanRecord);
    });
  }

  latestStatuses() {
    return guard("latestStatuses", () => this.read(readStatuses));
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
      return rows.map((row) => toStatusPeriod(row));
    });
  }

  newestSucceededScan() {
    return guard("newestSucceededScan", () => this.read(newestSucceededScan));
  }

  readPasses() {
    // One snapshot: a result and its basis are only valid together.
    return guard("readPasses", () => this.read(readPasses));
  }

  readScanDelta(since: ScanRecord, options: { historyLimit: number }) {
    return guard("readScanDelta", () => this.read((sql) => readScanDeltaIn(sql, since, options.historyLimit)));
  }

  readState(options: { historyLimit: number }) {
    // One snapshot: a scan completing between the pages must not mix two scans' rows.
    return guard("readState", () => this.read((sql) => readStateIn(sql, options.historyLimit)));
  }

  anomalyFeedback() {
    return guard("anomalyFeedback", () => this.read(readAnomalyFeedback));
  }

  addAnomalyFeedback(feedback: Omit<AnomalyFeedbackRecord, "created_at" | "expected">) {
    return guard("addAnomalyFeedback", () =>
      this.database.sessions.transaction({ timeoutMs: this.transactionTimeoutMs }, (sql) =>
        insertAnomalyFeedback(sql, feedback, this.now(), this.origin),
      ),
    );
  }

  anomalyVerdicts(checkKeys: readonly string[]) {
    return guard("anomalyVerdicts", () => this.read((sql) => readAnomalyVerdicts(sql, checkKeys)));
  }

  putAnomalyVerdicts(verdicts: readonly SeriesVerdicts[]) {
    return guard("putAnomalyVerdicts", () =>
      this.database.sessions.transaction({ timeoutMs: this.transactionTimeoutMs }, async (sql) => {
        await upsertVerdicts(sql, verdicts, "feedback", this.now());
        // Written after the feedback's own transaction: a replica that read the series in between
        // reads it again now.
        for (const v of verdicts)
          await notifyChange(sql, { kind: "verdicts", id: v.check_key.slice(0, 200), check_key: v.check_key, origin: this.origin });
      }),
    );
  }

  anomalyBuckets(checkKeys: readonly string[]) {
    return guard("anomalyBuckets", () => this.read((sql) => readAnomalyBuckets(sql, checkKeys)));
  }

  readLoads() {
    return guard("readLoads", () => this.read(readLoads));
  }

  revokeSession(sessionId: string, expiresAt: Date): Promise<void> {
    return guard("revokeSession", async () => {
      await this.db.sessionRevocation.createMany({ data: [{ sessionId, expiresAt }], skipDuplicates: true });
    });
  }

  sessionRevocations(afterSeq: bigint): Promise<SessionRevocation[]> {
    return guard("sessionRevocations", async () => {
      const rows = await this.db.sessionRevocation.findMany({
        where: { seq: { gt: afterSeq }, expiresAt: { gt: this.now() } },
        orderBy: { seq: "asc" },
        select: { seq: true, sessionId: true, expiresAt: true },
      });
      return rows.map((row) => ({ seq: row.seq, session_id: row.sessionId, expires_at: row.expiresAt }));
    });
  }

  claimRun(name: string, fireTime: Date): Promise<boolean> {
    // createMany + skipDuplicates is INSERT ... ON CONFLICT DO NOTHING: the count says who won.
    return guard(
      "claimRun",
      async () => (await this.db.runClaim.createMany({ data: [{ name, fireTime }], skipDuplicates: true })).count === 1,
    );
  }

  prune(before: Date): Promise<void> {
    return guard("prune", async () => {
      // The newest succeeded scan stays whatever its age: it says when statuses were last checked.
      const newest = await this.read(newestSucceededScan);
      const deleted = await this.db.$transaction([
        this.db.scan.deleteMany({ where: { finishedAt: { lt: before }, ...(newest ? { id: { not: newest.scan_id } } : {}) } }),
        this.db.checkResult.deleteMany({ where: { validTo: { lt: before } } }),
        this.db.statusChange.deleteMany({ where: { to: { lt: before } } }),
        this.db.runClaim.deleteMany({ where: { claimedAt: { lt: before } } }),
        this.db.sessionRevocation.deleteMany({ where: { expiresAt: { lt: this.now() } } }),
        // Flagged buckets no scan has flagged since `before` (feedback is kept with its check).
        this.db.anomalyBucket.deleteMany({ where: { active: false, updatedAt: { lt: before } } }),
        // Incidents resolved before `before` (their tests and metrics cascade); open ones stay whatever their age.
        this.db.incident.deleteMany({ where: { resolvedAt: { lt: before } } }),
        // Versions no kept scan ran (their definitions cascade).
        this.db.$executeRawUnsafe(
          `DELETE FROM "catalog_versions" v WHERE NOT EXISTS (SELECT 1 FROM "scans" s WHERE s."catalog_version" = v."hash")`,
        ),
      ]);
      const versionsDeleted = deleted.at(-1) as number;
      // Then checks no version uses (their results cascade). Only a deleted version leaves such
      // checks, and the anti-join over every check costs 170 ms of the server's time at 10,000
      // metrics: run after a version went, and once per process (a sweep an earlier process
      // did not finish).
      if (versionsDeleted > 0 || !this.checksSwept) {
        await this.db.$executeRawUnsafe(
          `DELETE FROM "checks" c WHERE NOT EXISTS (SELECT 1 FROM "test_definitions" d WHERE d."check_id" = c."id")`,
        );
        this.checksSwept = true;
      }
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

  /** A read-only snapshot transaction on the driver (see sql-session.ts). */
  private read<T>(run: (sql: Sql) => Promise<T>): Promise<T> {
    return this.database.sessions.transaction({ timeoutMs: this.transactionTimeoutMs, snapshot: true }, run);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.feed?.close();
      await this.database.close().catch(() => undefined);
    })();
    return this.closing;
  }
}
