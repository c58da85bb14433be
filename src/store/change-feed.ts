// How replicas on one PostgreSQL learn of each other's writes within a second: the writing
// transaction sends NOTIFY (pg_notify inside it, so it is delivered on commit only, never for a
// rolled-back write), and every replica LISTENs on a connection of its own, reconnecting when it
// drops. The same connection holds a session advisory lock naming this process: PostgreSQL
// releases it the moment the process's connection goes (SIGKILL, OOM), which is how peers tell a
// dead scan owner from a live one without trusting host names or pids (scan/orphans.ts).
// PGlite is one process: nothing to listen to there.
import { randomInt } from "node:crypto";
import pg from "pg";
import type { Logger } from "../logger.js";
import type { Sql } from "./sql-session.js";
import { describeError } from "./store-error.js";

export const CHANGE_CHANNEL = "metric_reliability_changes";
/** First key of the per-process advisory lock (the second is the process's session key). */
export const SESSION_LOCK_CLASS = 72707371;

/** `verdicts`: a series' verdicts scored again outside a scan (after a feedback). */
export type StoreChangeKind = "scan" | "feedback" | "catalog" | "verdicts";
const KINDS: readonly string[] = ["scan", "feedback", "catalog", "verdicts"] satisfies StoreChangeKind[];

/** What a committed transaction changed, and its id (scan id, check key@bucket, catalogue hash, check key). */
export interface StoreChange {
  kind: StoreChangeKind;
  id: string;
  /** the store (process) that wrote it: a replica has already applied its own scans */
  origin?: string;
  /**
   * feedback and verdicts: the check whose series changed, so a replica reads only its verdicts
   * again. Absent (a key too long for a notification, or an older writer): every series.
   */
  check_key?: string;
}

/** PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more, and the writing transaction with it. */
export const MAX_PAYLOAD_BYTES = 7_900;

/** The payload of `change`: without its check key, and with its id cut, when it would be too long. */
export function changePayload(change: StoreChange): string {
  const payload = JSON.stringify(change);
  if (Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES) return payload;
  const { check_key: _dropped, ...rest } = change;
  return JSON.stringify({ ...rest, id: rest.id.slice(0, 500) });
}

/** Sends the change to every listener when (and only if) the transaction `sql` belongs to commits. */
export async function notifyChange(sql: Sql, change: StoreChange): Promise<void> {
  await sql(`SELECT pg_notify($1, $2)`, [CHANGE_CHANNEL, changePayload(change)]);
}

/** A payload from another replica (or an older version): null when it is not one we know. */
export function parseChange(payload: string | undefined): StoreChange | null {
  if (!payload) return null;
  try {
    const value = JSON.parse(payload) as Partial<StoreChange>;
    if (typeof value.kind === "string" && KINDS.includes(value.kind) && typeof value.id === "string") {
      return {
        kind: value.kind,
        id: value.id,
        ...(typeof value.origin === "string" ? { origin: value.origin } : {}),
        ...(typeof value.check_key === "string" ? { check_key: value.check_key } : {}),
      };
    }
  } catch {
    // not ours
  }
  return null;
}

export interface ChangeHandlers {
  /** `own`: written by the store that listens (this process) */
  onChange(change: StoreChange & { own?: boolean }): void;
  /** true once LISTEN is set up (again: notifications may have been missed meanwhile), false when it drops */
  onConnection?(connected: boolean): void;
}

export interface ChangeFeed {
  connected(): boolean;
  /** the advisory lock key this process holds while connected; null while not */
  sessionKey(): number | null;
  close(): Promise<void>;
}

const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 5_000;
const CONNECT_TIMEOUT_MS = 10_000;

export function openChangeFeed(connectionString: string, handlers: ChangeHandlers, logger?: Pick<Logger, "warn" | "info">): ChangeFeed {
  // Non-negative: pg_locks shows the key as an oid.
  let key = randomInt(1, 2 ** 31 - 1);
  let client: pg.Client | null = null;
  let live = false;
  let closed = false;
  let delay = RECONNECT_MIN_MS;
  let timer: NodeJS.Timeout | null = null;

  function setLive(next: boolean): void {
    if (live === next) return;
    live = next;
    handlers.onConnection?.(next);
  }

  function dropped(which: pg.Client, error?: Error): void {
    if (client !== which) return;
    client = null;
    which.removeAllListeners("notification");
    which.end().catch(() => undefined);
    if (live) logger?.warn({ err: error ? describeError(error) : undefined }, "store change listener disconnected; reconnecting");
    setLive(false);
    schedule();
  }

  function schedule(): void {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, delay);
    timer.unref();
    delay = Math.min(delay * 2, RECONNECT_MAX_MS);
  }

  async function connect(): Promise<void> {
    if (closed) return;
    const next = new pg.Client({
      connectionString,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      application_name: "metric-reliability listener",
    });
    client = next;
    next.on("error", (error) => dropped(next, error));
    next.on("end", () => dropped(next));
    next.on("notification", (message) => {
      if (message.channel !== CHANGE_CHANNEL) return;
      const change = parseChange(message.payload);
      if (change) handlers.onChange(change);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGE_CHANNEL}`);
      // Another process holding the same key (1 in 2^31): take another.
      for (;;) {
        const { rows } = await next.query<{ held: boolean }>(`SELECT pg_try_advisory_lock($1, $2) AS held`, [SESSION_LOCK_CLASS, key]);
        if (rows[0]?.held) break;
        key = randomInt(1, 2 ** 31 - 1);
      }
      if (closed || client !== next) {
        await next.end().catch(() => undefined);
        return;
      }
      delay = RECONNECT_MIN_MS;
      setLive(true);
    } catch (error) {
      if (client === next) logger?.warn({ err: describeError(error) }, "store change listener cannot connect; retrying");
      dropped(next, error as Error);
    }
  }

  void connect();
  return {
    connected: () => live,
    sessionKey: () => (live ? key : null),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const current = client;
      client = null;
      live = false;
      await current?.end().catch(() => undefined);
    },
  };
}
