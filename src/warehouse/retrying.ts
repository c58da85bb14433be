// Transient warehouse failures (a reset or refused connection, "socket hang up", ClickHouse's
// TOO_MANY_SIMULTANEOUS_QUERIES) are retried with backoff, a few times and never past the
// query's own time limit. What is still failing after that is an outage: the scan fails.
import { setTimeout as sleep } from "node:timers/promises";
import type { QueryOptions, Row, Warehouse } from "./warehouse.js";
import { WarehouseError } from "./warehouse-error.js";

export interface RetryPolicy {
  /** attempts in all, the first included */
  attempts: number;
  /** wait before the first retry; doubles each time, with jitter */
  baseDelayMs: number;
  /** the query's time limit: no retry starts after it */
  timeoutSeconds: number;
}

export const DEFAULT_RETRY = { attempts: 5, baseDelayMs: 100 };

export function isTransient(error: unknown): boolean {
  return error instanceof WarehouseError && (error.kind === "connection" || error.kind === "overloaded");
}

export function withRetries(
  warehouse: Warehouse,
  policy: RetryPolicy,
  onRetry?: (info: { queryId: string; attempt: number; error: Error }) => void,
): Warehouse {
  async function query(sql: string, options: QueryOptions): Promise<Row[]> {
    const deadline = Date.now() + (options.timeoutSeconds ?? policy.timeoutSeconds) * 1000;
    for (let attempt = 1; ; attempt++) {
      try {
        // A new id per attempt: the server may still be running the attempt whose connection died.
        return await warehouse.query(sql, attempt === 1 ? options : { ...options, queryId: `${options.queryId}-r${attempt - 1}` });
      } catch (error) {
        const delay = policy.baseDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
        if (!isTransient(error) || attempt >= policy.attempts || options.signal?.aborted || Date.now() + delay >= deadline) throw error;
        onRetry?.({ queryId: options.queryId, attempt, error: error as Error });
        await sleep(delay, undefined, options.signal ? { signal: options.signal } : undefined).catch(() => {
          throw error;
        });
      }
    }
  }
  return { name: warehouse.name, engine: warehouse.engine, query, ping: () => warehouse.ping(), close: () => warehouse.close() };
}
