// What the daemon's thread and the embedded database's worker thread (pglite-thread.ts) say.

/** What the worker is started with. */
export interface ThreadSettings {
  dataDir: string;
  /** PostgreSQL settings added to PGlite's defaults */
  startParams: string[];
}

export type ThreadRequest =
  /** wire-protocol bytes, answered with PostgreSQL's raw response (`bytes`) */
  | { type: "protocol"; id: number; message: Uint8Array }
  /** one statement, parameters serialised and rows parsed in the worker (`rows`) */
  | { type: "query"; id: number; sql: string; params: unknown[] }
  /** simple-query SQL, possibly several statements (`rows`, empty) */
  | { type: "exec"; id: number; sql: string }
  /** shut PostgreSQL down and exit (`bytes`, empty) */
  | { type: "close"; id: number };

export type ThreadReply =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | { type: "bytes"; id: number; data: Uint8Array }
  | { type: "rows"; id: number; rows: Record<string, unknown>[]; affectedRows: number }
  | { type: "error"; id: number; message: string; code?: string | undefined };

export type Answer = Extract<ThreadReply, { type: "bytes" | "rows" }>;
