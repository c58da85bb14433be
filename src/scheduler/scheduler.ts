// Cron-driven scans. With several replicas, each fire runs on exactly one of them: node-cron
// asks the RunCoordinator, which claims the row `name:fireTime` in the store; the first
// replica to insert it wins (INSERT ... ON CONFLICT DO NOTHING).
import cron, { type RunCoordinator, type ScheduledTask } from "node-cron";
import type { Logger } from "../logger.js";
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

export function startScheduler(options: { schedule: string; scanService: ScanService; store: Store; logger: Logger }): Scheduler {
  const { logger } = options;
  const task: ScheduledTask = cron.schedule(
    options.schedule,
    async () => {
      try {
        const { scan, coalesced } = await options.scanService.trigger("schedule");
        logger.info({ scan_id: scan.scan_id, coalesced }, "scheduled scan triggered");
      } catch (error) {
        // A store outage must skip this fire, never crash the daemon.
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
  logger.info({ schedule: options.schedule, next: task.getNextRun() }, "scan schedule armed");
  return {
    async stop() {
      await task.stop();
      await task.destroy();
    },
  };
}
