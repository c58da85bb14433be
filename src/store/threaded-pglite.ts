// The embedded store's PGlite as seen from the daemon's thread, while PostgreSQL itself runs in a
// worker thread (pglite-thread.ts). It is PGlite's own base class (query, exec, transaction,
// type handling, DatabaseError: what pglite-prisma-adapter relies on) over wire-protocol messages
// that the worker executes, plus `session` for the store's bulk statements, which the worker
// runs whole.
import type { Worker } from "node:worker_threads";
import {
  messages,
  Mutex,
  PGlite,
  protocol,
  type ExecProtocolOptions,
  type ExecProtocolOptionsStream,
  type ExecProtocolResult,
} from "@electric-sql/pglite";
import type { Answer, ThreadReply, ThreadRequest } from "./pglite-thread-messages.js";

type BaseMembers = Pick<
  PGlite,
  "query" | "sql" | "exec" | "transaction" | "describeQuery" | "runExclusive" | "serializers" | "parsers" | "_initArrayTypes"
>;
/** PGlite's base class: everything above the wire protocol, over abstract execProtocol* methods. */
const BasePGlite = Object.getPrototypeOf(PGlite) as abstract new () => BaseMembers;
const baseMethods = BasePGlite.prototype as Partial<BaseMembers> | undefined;
if (typeof baseMethods?.transaction !== "function" || typeof baseMethods.query !== "function") {
  throw new Error("@electric-sql/pglite changed: PGlite's base class no longer provides query and transaction");
}

const CLOSE_TIMEOUT_MS = 60_000;

/** A statement of the store's own, run whole by the worker. */
export interface SessionStatements {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[]; affectedRows: number }>;
  exec(sql: string): Promise<void>;
}

interface Pending {
  resolve(answer: Answer): void;
  reject(error: Error): void;
}

type Request = ThreadRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;

/** An error the worker reported, with PostgreSQL's SQLSTATE when it came from the database. */
export class ThreadError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "ThreadError";
  }
}

export class ThreadedPGlite extends BasePGlite {
  readonly debug = 0;
  /** resolves once the worker has opened the database */
  readonly ready: Promise<void>;
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  readonly #queryMutex = new Mutex();
  readonly #transactionMutex = new Mutex();
  readonly #exited: Promise<void>;
  #nextId = 1;
  /** why the worker can no longer answer; set when it fails or exits */
  #stopped: Error | null = null;
  #closing: Promise<void> | null = null;

  constructor(worker: Worker) {
    super();
    this.#worker = worker;
    let opened: () => void;
    let failed: (error: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      opened = resolve;
      failed = reject;
    });
    // Whoever opens the database awaits it; this only keeps an early failure from going unhandled.
    this.ready.catch(() => undefined);
    worker.on("message", (reply: ThreadReply) => {
      if (reply.type === "ready") {
        // Idle, the worker does not keep the process alive; a request in flight does (see #call).
        if (this.#pending.size === 0) worker.unref();
        opened();
      } else if (reply.type === "failed") failed(new Error(reply.message));
      else if (reply.type === "error") this.#settle(reply.id)?.reject(new ThreadError(reply.message, reply.code));
      else this.#settle(reply.id)?.resolve(reply);
    });
    worker.on("error", (error) => this.#stop(new Error(`the embedded database's thread failed: ${error.message}`, { cause: error })));
    this.#exited = new Promise((resolve) => {
      worker.once("exit", (code) => {
        this.#stop(new Error(`the embedded database's thread stopped (exit code ${code})`));
        failed(this.#stopped!);
        resolve();
      });
    });
  }

  get closed(): boolean {
    return this.#closing !== null || this.#stopped !== null;
  }

  #stop(reason: Error): void {
    this.#stopped ??= reason;
    for (const id of [...this.#pending.keys()]) this.#settle(id)?.reject(this.#stopped);
  }

  #settle(id: number): Pending | undefined {
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    if (this.#pending.size === 0 && !this.#closing) this.#worker.unref();
    return pending;
  }

  #call(request: Request): Promise<Answer> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
      try {
        this.#worker.postMessage({ ...request, id });
      } catch (error) {
        // a parameter that cannot be cloned: nothing was sent
        this.#settle(id)?.reject(error as Error);
      }
    });
  }

  async #bytes(request: Request): Promise<Uint8Array> {
    const answer = await this.#call(request);
    if (answer.type !== "bytes") throw new Error(`the embedded database's thread answered ${answer.type} to ${request.type}`);
    return answer.data;
  }

  /**
   * Runs `work` with the connection to itself, as a transaction does: no other query or
   * transaction interleaves. Its statements are serialised and parsed by the worker.
   */
  async session<T>(work: (statements: SessionStatements) => Promise<T>): Promise<T> {
    await this._checkReady();
    return this._runExclusiveTransaction(async () => {
      // Once `work` has settled (a timeout does not stop its code), its statements would run
      // outside the session: they are refused, as PGlite refuses a closed transaction's.
      let open = true;
      const send = (request: Request) => (open ? this.#call(request) : Promise.reject(new Error("the session is closed")));
      try {
        return await work({
          query: async <R>(sql: string, params: unknown[] = []) => {
            const answer = await send({ type: "query", sql, params });
            if (answer.type !== "rows") throw new Error(`the embedded database's thread answered ${answer.type} to a query`);
            return { rows: answer.rows as R[], affectedRows: answer.affectedRows };
          },
          exec: async (sql: string) => void (await send({ type: "exec", sql })),
        });
      } finally {
        open = false;
      }
    });
  }

  /** The response bytes as PostgreSQL wrote them. */
  execProtocolRaw(message: Uint8Array, _options?: ExecProtocolOptions): Promise<Uint8Array> {
    // postMessage copies the whole buffer under a view: send only the message's own bytes.
    const own = message.byteOffset === 0 && message.byteLength === message.buffer.byteLength ? message : message.slice();
    return this.#bytes({ type: "protocol", message: own });
  }

  async execProtocolRawStream(message: Uint8Array, { onRawData }: ExecProtocolOptionsStream): Promise<void> {
    onRawData(await this.execProtocolRaw(message));
  }

  async execProtocol(message: Uint8Array, options: ExecProtocolOptions = {}): Promise<ExecProtocolResult> {
    const data = await this.execProtocolRaw(message);
    return { messages: this.#parse(data, options), data };
  }

  async execProtocolStream(message: Uint8Array, options: ExecProtocolOptions = {}): Promise<messages.BackendMessage[]> {
    return this.#parse(await this.execProtocolRaw(message), options);
  }

  /** As PGlite does it: messages up to the first error, which is thrown once all are read. */
  #parse(data: Uint8Array, { throwOnError = true, onNotice }: ExecProtocolOptions): messages.BackendMessage[] {
    const results: messages.BackendMessage[] = [];
    const failed: { error?: messages.DatabaseError } = {};
    new protocol.Parser().parse(data, (msg) => {
      if (failed.error) return;
      if (msg instanceof messages.DatabaseError) {
        if (throwOnError) failed.error = msg;
      } else if (msg instanceof messages.NoticeMessage) {
        onNotice?.(msg);
      }
      results.push(msg);
    });
    if (failed.error) throw failed.error;
    return results;
  }

  /** The worker syncs after every message. */
  async syncToFs(): Promise<void> {}

  async _handleBlob(blob?: Blob): Promise<void> {
    if (blob) throw new Error("COPY from a file is not supported by the embedded store");
  }

  async _getWrittenBlob(): Promise<Blob | undefined> {
    return undefined;
  }

  async _cleanupBlob(): Promise<void> {}

  async _checkReady(): Promise<void> {
    if (this.#stopped) throw this.#stopped;
    if (this.#closing) throw new Error("PGlite is closed");
    await this.ready;
  }

  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T> {
    return this.#queryMutex.runExclusive(fn);
  }

  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.#transactionMutex.runExclusive(fn);
  }

  listen(): Promise<never> {
    return Promise.reject(new Error("LISTEN is not supported by the embedded store"));
  }

  /**
   * Lets queued queries and transactions finish, refuses new ones, then has PostgreSQL shut down
   * (a checkpoint) and the worker exit. A worker that does not answer in time is terminated:
   * PostgreSQL then recovers from its write-ahead log at the next start.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    // Held until the worker has exited, so that a caller awaiting close() is still there after it.
    this.#worker.ref();
    await this.ready.catch(() => undefined);
    await this.#transactionMutex.runExclusive(() => this.#queryMutex.runExclusive(async () => undefined));
    if (!this.#stopped) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS)));
      await Promise.race([this.#bytes({ type: "close" }).catch(() => undefined), late]);
      clearTimeout(timer);
      await Promise.race([this.#exited, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    }
    if (!this.#stopped) await this.#worker.terminate();
    await this.#exited;
  }
}
