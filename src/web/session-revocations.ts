// Logout on every replica. Sessions stay sealed cookies (no session table to read on every page,
// no store round trip per request, nothing lost when the store is down); a logout writes the
// session's id to the store, and every replica refuses the ids it has read from there. A replica
// asks the store for revocations it has not seen (by sequence number) at most once per
// CHECK_EVERY_MS, when a page with a session is asked for: a copy of a logged-out cookie is
// refused everywhere within about a second, and an idle replica asks nothing.
import type { Logger } from "../logger.js";
import type { Store } from "../store/store.js";

/** How stale a replica's list of revoked sessions may be when it answers a page. */
export const CHECK_EVERY_MS = 1_000;
/** How long a page waits for the store's answer; past it (store down) the list it has is used. */
const WAIT_MS = 500;

export interface SessionRevocations {
  /** Whether the session was logged out here or on any replica. */
  isRevoked(sessionId: string): Promise<boolean>;
  /** Logs the session out everywhere (here at once; elsewhere by the next check). */
  revoke(sessionId: string, expiresAt: number): Promise<void>;
}

export function createSessionRevocations(options: {
  store: Pick<Store, "revokeSession" | "sessionRevocations">;
  logger?: Logger | undefined;
  now?: () => number;
}): SessionRevocations {
  const { store, logger } = options;
  const now = options.now ?? Date.now;
  /** revoked session id -> when it expires (then it no longer needs refusing) */
  const revoked = new Map<string, number>();
  let seen = 0n;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<void> | null = null;

  const read = async () => {
    const rows = await store.sessionRevocations(seen);
    for (const row of rows) {
      revoked.set(row.session_id, row.expires_at.getTime());
      if (row.seq > seen) seen = row.seq;
    }
    const at = now();
    for (const [id, expiresAt] of revoked) if (expiresAt <= at) revoked.delete(id);
  };

  const refresh = (): Promise<void> => {
    if (now() - checkedAt < CHECK_EVERY_MS) return Promise.resolve();
    pending ??= read()
      .then(
        () => void (checkedAt = now()),
        (error: unknown) => {
          // The store is down: the pages go on with the list they have (checked again in a second).
          checkedAt = now();
          logger?.warn({ err: error }, "reading session revocations from the store failed; using the ones already read");
        },
      )
      .finally(() => (pending = null));
    const waited = pending;
    return Promise.race([waited, new Promise<void>((resolve) => setTimeout(resolve, WAIT_MS).unref())]);
  };

  return {
    async isRevoked(sessionId) {
      if (revoked.has(sessionId)) return true;
      await refresh();
      return revoked.has(sessionId);
    },
    async revoke(sessionId, expiresAt) {
      revoked.set(sessionId, expiresAt);
      await store.revokeSession(sessionId, new Date(expiresAt));
    },
  };
}
