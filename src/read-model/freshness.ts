// "At least scan X": a client that knows of a scan (it started it, or read it on another replica)
// asks for a view that reflects it; this replica refreshes from the store first if it has not
// applied it yet, and refuses (503, Retry-After) rather than answer from an older view.
//
// Scan ids are random UUIDs: they carry no order. The order is the store's own: the read model
// reflects the newest succeeded scan by (finished_at, id), finished_at being taken under the
// completion lock (store/complete-scan.ts), so completions are totally ordered by it. A view
// reflects X when its scan is X or finished after X. A scan that did not succeed (failed,
// aborted) changed no statuses: the view reflects it once it was refreshed after X finished.
import { AppError, notFound } from "../errors/app-error.js";
import type { ScanRecord, Store } from "../store/store.js";
import type { ReadModel, ReadView } from "./read-model.js";

/** Seconds a client waits before asking again (a scan is applied within about a second). */
export const RETRY_AFTER_SECONDS = 1;
/** Finished scans remembered, so a circuit breaker polling with the same id costs no store read. */
const KNOWN_SCANS = 1_000;

export interface Freshness {
  /**
   * Resolves once the view reflects scan `scanId` (refreshing it from the store when needed).
   * Rejects: not_found (no such scan), unavailable with Retry-After (still running, or the
   * replica could not reach or apply it). With `ifFinished`, a running scan asks for nothing.
   */
  atLeast(scanId: string, options?: { ifFinished?: boolean }): Promise<void>;
}

const notYet = (message: string, cause?: unknown) =>
  new AppError("unavailable", message, { cause, headers: { "Retry-After": String(RETRY_AFTER_SECONDS) } });

/** Whether `view` reflects the succeeded scan `target` (store order: finished_at, then id). Pure. */
export function reflects(view: Pick<ReadView, "scan">, target: ScanRecord, { refreshed }: { refreshed: boolean }): boolean {
  const scan = view.scan;
  if (scan?.scan_id === target.scan_id) return true;
  if (target.status !== "succeeded") return refreshed;
  if (!scan?.finished_at || !target.finished_at) return false;
  const [mine, theirs] = [scan.finished_at.getTime(), target.finished_at.getTime()];
  // Same millisecond, other id: the store ranked the view's scan first when it was read after X.
  return mine > theirs || (refreshed && mine === theirs);
}

export function createFreshness(options: { readModel: Pick<ReadModel, "view" | "refresh">; store: Pick<Store, "getScan"> }): Freshness {
  const { readModel, store } = options;
  const known = new Map<string, ScanRecord>();

  async function lookUp(scanId: string): Promise<ScanRecord> {
    const held = known.get(scanId);
    if (held) return held;
    let scan: ScanRecord | null;
    try {
      scan = await store.getScan(scanId);
    } catch (error) {
      throw notYet(`cannot tell whether this replica reflects scan ${scanId}: the store is unavailable`, error);
    }
    if (!scan) throw notFound(`scan "${scanId}" not found`);
    if (scan.status !== "running") {
      if (known.size >= KNOWN_SCANS) known.clear();
      known.set(scanId, scan);
    }
    return scan;
  }

  return {
    async atLeast(scanId, { ifFinished = false } = {}) {
      if (readModel.view().scan?.scan_id === scanId) return;
      const target = await lookUp(scanId);
      if (target.status === "running") {
        if (ifFinished) return;
        throw notYet(`scan ${scanId} is still running`);
      }
      if (reflects(readModel.view(), target, { refreshed: false })) return;
      try {
        await readModel.refresh();
      } catch (error) {
        throw notYet(`this replica has not applied scan ${scanId} yet and cannot read the store now`, error);
      }
      if (!reflects(readModel.view(), target, { refreshed: true })) throw notYet(`this replica has not applied scan ${scanId} yet`);
    },
  };
}
