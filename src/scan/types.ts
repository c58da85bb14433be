import type { CheckObservation } from "../evaluate/types.js";
import type { ScanRecord, ScanTrigger } from "../store/store.js";

export interface ScanService {
  /** Starts a scan, or joins the one already running (coalesced: true). Returns at once. */
  trigger(trigger: ScanTrigger): Promise<{ scan: ScanRecord; coalesced: boolean }>;
  /** Resolves with the scan's final record once it has finished (or at once if it has). */
  wait(scanId: string): Promise<ScanRecord>;
  /** trigger + wait, returning the finished scan's observations (POST /v1/semantic-tests/run). */
  run(trigger: ScanTrigger): Promise<{ scan: ScanRecord; observations: ReadonlyMap<string, CheckObservation> }>;
  /** Cancels the running scan's warehouse queries and waits for it to settle. */
  stop(): Promise<void>;
}
