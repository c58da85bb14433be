// The warehouse boundary: a ClickHouse server (@clickhouse/client) or embedded chdb.

export interface QueryOptions {
  /** tagged on the query so it can be found and cancelled (system.processes / KILL QUERY) */
  queryId: string;
  /** max_execution_time; defaults to the warehouse's configured timeout */
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

export type Row = Record<string, unknown>;

export interface Warehouse {
  /** datasource name this warehouse serves, e.g. "default" */
  readonly name: string;
  /** "server" (@clickhouse/client) or "embedded" (chdb) */
  readonly engine: "server" | "embedded";
  /** Runs a read-only SELECT (readonly=1, max_execution_time) and returns its rows (JSONEachRow). */
  query(sql: string, options: QueryOptions): Promise<Row[]>;
  /** True when the warehouse answers SELECT 1. Never throws. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
