// Cron-driven scans. With several replicas, each fire runs on exactly one of them: node-cron
// asks the RunCoordinator, which claims the row `name:fireTime` in the store; the first
// replica to insert it wins (INSERT ... ON CONFLICT DO NOTHING). A fire that starts no scan is
// counted by reason (metric_reliability_scan_skipped_total): during a store outage no scan fails,
// none even starts, and only this counter says so.
import cron, { type RunCoordinator, type ScheduledTask, type SkipReason as CronSkipReason } from "node-cron";
import type { Logger } from "../logger.js";
import type { Metrics, SkipReason } from "../metrics/prometheus.js";
import type { ScanService } from "../scan/types.js";
import type { Store } from "../store/store.js";

const TASK_NAME = "reliability-scan";

export function storeRunCoordinator(store: Store): RunCoordinator {
  return {
    async shouldRun(key: string): Promise<boolean> {
      // node-cron builds the key as `${name}:${fireTime ISO}`; the name has no colon.
      const split = key.indexOf(":");
      const name = key.slice(0, split);
      const fireTime = new Date(key.slice(split + 1));
      if (split < 0 || Number.isNaN(fireTime.getTime())) throw new Error(`unexpected coordination key ${key}`);
      return store.claimRun(name, fireTime);
    },
  };
}

export interface Scheduler {
  stop(): Promise<void>;
}

export interface SchedulerOptions {
  schedule: string;
  scanService: ScanService;
  store: Store;
  logger: Logger;
  /** counts fires that started no scan, so an outage that stops every scan shows in /metrics */
  metrics: Pick<Metrics, "countSkippedScan">;
}

/** node-cron's reasons for not running a fire, in our label values. */
const CRON_SKIP_REASONS: Record<CronSkipReason, SkipReason> = {
  // the coordinator's only dependency is the store's run_claims table
  "coordinator-error": "store_unavailable",
  "not-elected": "not_elected",
};

export function startScheduler(options: SchedulerOptions): Scheduler {
  const { logger, metrics } = options;
  const task: ScheduledTask = cron.schedule(
    options.schedule,
    async () => {
      try {
        const { scan, coalesced } = await options.scanService.trigger("schedule");
        // A fire that joins a running scan starts nothing new: counted, as the alerts need.
        if (coalesced) metrics.countSkippedScan("already_running");
        logger.info({ scan_id: scan.scan_id, coalesced }, "scheduled scan triggered");
      } catch (error) {
        // trigger() throws only when the store cannot record the scan. A store outage must
        // skip this fire, never crash the daemon.
        metrics.countSkippedScan("store_unavailable");
        logger.error({ err: error }, "scheduled scan could not start");
      }
    },
    {
      name: TASK_NAME,
      distributed: true,
      runCoordinator: storeRunCoordinator(options.store),
      noOverlap: true,
      logger: {
        info: (m) => logger.debug(m),
        warn: (m) => logger.warn(m),
        error: (m, e) => logger.error({ err: e }, String(m)),
        debug: (m) => logger.debug(String(m)),
      },
    },
  );
  task.on("execution:skipped", (context) => {
    if (context.reason) metrics.countSkippedScan(CRON_SKIP_REASONS[context.reason]);
  });
  // With noOverlap, a fire while the previous fire is still starting its scan does not run.
  task.on("execution:overlap", () => metrics.countSkippedScan("already_running"));
  task.on("execution:missed", () => metrics.countSkippedScan("missed"));
  logger.info({ schedule: options.schedule, next: task.getNextRun() }, "scan schedule armed");
  return {
    async stop() {
      await task.stop();
      await task.destroy();
    },
  };
}
