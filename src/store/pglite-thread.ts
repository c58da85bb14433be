// The embedded database's own thread: PGlite (PostgreSQL compiled to WebAssembly) runs here, so a
// long statement never holds the daemon's event loop. Prisma's queries arrive as wire-protocol
// messages (the daemon's thread serialises and parses them, as with a PostgreSQL server); the
// store's bulk statements arrive as SQL and parameters, and their rows go back parsed, so a
// 100,000-row write or a page of results costs the daemon's thread one structured clone.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import type { Answer, ThreadReply, ThreadRequest, ThreadSettings } from "./pglite-thread-messages.js";

const port = parentPort;
if (!port) throw new Error("pglite-thread runs as a worker thread");
const settings = workerData as ThreadSettings;

const reply = (message: ThreadReply, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

let db: PGlite;
try {
  db = await PGlite.create(settings.dataDir, { startParams: [...PGlite.defaultStartParams, ...settings.startParams] });
  reply({ type: "ready" });
} catch (error) {
  reply({ type: "failed", message: error instanceof Error ? error.message : String(error) });
  port.close();
  throw error;
}

/** PostgreSQL's raw response, unparsed, in one buffer the daemon's thread can take over. */
async function protocol(message: Uint8Array): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  await db.execProtocolRawStream(message, {
    onRawData: (bytes) => {
      // a view into WebAssembly memory: copy it before PostgreSQL writes there again
      chunks.push(bytes.slice());
      length += bytes.length;
    },
  });
  if (chunks.length === 1) return chunks[0]!;
  const data = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    data.set(chunk, offset);
    offset += chunk.length;
  }
  return data;
}

async function answer(request: ThreadRequest): Promise<Answer> {
  switch (request.type) {
    case "protocol":
      return { type: "bytes", id: request.id, data: await protocol(request.message) };
    case "query": {
      const result = await db.query<Record<string, unknown>>(request.sql, request.params);
      return { type: "rows", id: request.id, rows: result.rows, affectedRows: result.affectedRows ?? 0 };
    }
    case "exec":
      await db.exec(request.sql);
      return { type: "rows", id: request.id, rows: [], affectedRows: 0 };
    case "close":
      // A clean shutdown: PostgreSQL's shutdown checkpoint, then the files are closed.
      await db.close();
      return { type: "bytes", id: request.id, data: new Uint8Array(0) };
  }
}

// Requests are answered in order: the daemon's thread sends one at a time per connection.
let queue = Promise.resolve();
port.on("message", (request: ThreadRequest) => {
  queue = queue.then(async () => {
    try {
      const result = await answer(request);
      reply(result, result.type === "bytes" ? [result.data.buffer as ArrayBuffer] : []);
    } catch (error) {
      const { message, code } = error as { message?: string; code?: string };
      reply({ type: "error", id: request.id, message: message ?? String(error), code });
    }
    if (request.type === "close") port.close();
  });
});
