// Failures the store could not record: when the store itself is what is down, a failed scan's row
// would read `running` for ever. They are kept here and written again every
// UNRECORDED_FAILURE_RETRY_MS until the store takes them.
import type { Logger } from "../logger.js";
import type { Store } from "../store/store.js";

/** How often a failure the store could not record is written again. */
export const UNRECORDED_FAILURE_RETRY_MS = 2_000;

export interface FailureRecorder {
  /** a failure the store refused: written again until it takes it */
  remember(scanId: string, finishedAt: Date, error: string): void;
  /** no more retries; one last try (what the store still refuses, the next start aborts: scan/orphans.ts) */
  stop(): Promise<void>;
}

export function createFailureRecorder(store: Pick<Store, "failScan">, logger: Pick<Logger, "info">): FailureRecorder {
  const unrecorded = new Map<string, { finishedAt: Date; error: string }>();
  let retryTimer: NodeJS.Timeout | null = null;
  let recording: Promise<void> | null = null;

  /** One pass at a time over the unrecorded failures; stops at the first the store refuses. */
  function recordFailures(): Promise<void> {
    recording ??= (async () => {
      for (const [scanId, failure] of unrecorded) {
        try {
          await store.failScan(scanId, failure.finishedAt, failure.error);
        } catch {
          return; // still down: the next tick tries again
        }
        unrecorded.delete(scanId);
        logger.info({ scan_id: scanId }, "recorded a scan's failure once the store was back");
      }
      if (retryTimer) clearInterval(retryTimer);
      retryTimer = null;
    })().finally(() => {
      recording = null;
    });
    return recording;
  }

  return {
    remember(scanId, finishedAt, error) {
      unrecorded.set(scanId, { finishedAt, error });
      retryTimer ??= setInterval(() => void recordFailures(), UNRECORDED_FAILURE_RETRY_MS);
      retryTimer.unref();
    },
    async stop() {
      if (retryTimer) clearInterval(retryTimer);
      retryTimer = null;
      await recordFailures();
    },
  };
}
