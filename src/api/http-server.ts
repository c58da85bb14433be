// The HTTP server, bound before anything else starts: a busy PORT ends start-up at once, before
// the store is migrated or a warehouse is opened. Until the app is attached it answers
// /healthz (the process is alive) and 503 to everything else.
import http, { type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";

/** An app whose requests and responses carry methods of its own (express: app.request, app.response). */
export type AttachedApp = RequestListener & { request?: object; response?: object };

export class PortInUseError extends Error {
  override name = "PortInUseError";
}

export interface HttpServerOptions {
  port: number;
  host: string;
  /** time to receive a whole request (headers and body); REQUEST_TIMEOUT_SECONDS */
  requestTimeoutSeconds: number;
}

export interface BoundServer {
  server: http.Server;
  port: number;
  /** starts answering with `app` */
  attach(app: AttachedApp): void;
}

type NodeConstructor = typeof http.IncomingMessage | typeof http.ServerResponse;

/**
 * A constructor for `base`'s objects whose prototype is whatever its `prototype` holds when one is
 * made. Express gives each request its app's methods with Object.setPrototypeOf(req, app.request),
 * which V8 makes slow and which, under load, promoted about 8 KB a request into the old generation:
 * with the catalogue's live heap, a mark-compact every second and the single-metric status's p99 at
 * 2.5 x a bare handler's (docs/benchmarks.md). Built on the app's prototypes from the start,
 * express' swap finds them in place and changes nothing (expressjs/express#5998).
 * Node declares both as plain functions; should one become a class (which cannot be called), the
 * server keeps Node's own and express swaps prototypes as before (null).
 */
function constructorOn(base: NodeConstructor): { prototype: object } | null {
  if (/^class\b/.test(Function.prototype.toString.call(base))) return null;
  const init = base as unknown as (this: object, ...args: unknown[]) => void;
  // Reflect.construct(base, args, made) would hold for classes too, but measured as slow as the swap.
  const made = function (this: object, ...args: unknown[]) {
    init.call(this, ...args);
  } as { prototype: object };
  made.prototype = base.prototype;
  return made;
}

const starting: RequestListener = (req, res) => {
  const alive = req.url === "/healthz";
  res.writeHead(alive ? 200 : 503, { "content-type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(alive ? { status: "ok" } : { error: { code: "unavailable", message: "starting" } }));
};

export async function bindHttpServer(options: HttpServerOptions): Promise<BoundServer> {
  const requestTimeout = options.requestTimeoutSeconds * 1000;
  const Request = constructorOn(http.IncomingMessage);
  const Response = constructorOn(http.ServerResponse);
  const server = http.createServer({
    ...(Request && Response
      ? {
          IncomingMessage: Request as unknown as typeof http.IncomingMessage,
          ServerResponse: Response as unknown as typeof http.ServerResponse,
        }
      : {}),
    // Slow clients (a trickled body or headers) get 408 instead of holding a connection;
    // checked every second so the timeout holds to the second (Node checks every 30 s by default).
    requestTimeout,
    headersTimeout: Math.min(requestTimeout, 60_000),
    connectionsCheckingInterval: 1_000,
  });
  let handler: RequestListener = starting;
  server.on("request", (req, res) => handler(req, res));
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE")
        reject(
          new PortInUseError(`PORT ${options.port}: ${options.host}:${options.port} is already in use (another process listens on it)`),
        );
      else if (error.code === "EACCES")
        reject(new PortInUseError(`PORT ${options.port}: not allowed to listen on ${options.host}:${options.port}`));
      else reject(error);
    };
    server.once("error", onError);
    server.listen(options.port, options.host, () => {
      server.off("error", onError);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    attach(app) {
      // app.request inherits IncomingMessage.prototype (and app.response ServerResponse's), so
      // the objects stay what Node made; only the methods express adds are found on them at once.
      // An app without its own gets Node's, whatever was attached before it.
      if (Request && Response) {
        Request.prototype = app.request ?? http.IncomingMessage.prototype;
        Response.prototype = app.response ?? http.ServerResponse.prototype;
      }
      handler = app;
    },
  };
}
