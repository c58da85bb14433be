// The HTTP server, bound before anything else starts: a busy PORT ends start-up at once, before
// the store is migrated or a warehouse is opened. Until the app is attached it answers
// /healthz (the process is alive) and 503 to everything else.
import http, { type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";

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
  attach(app: RequestListener): void;
}

const starting: RequestListener = (req, res) => {
  const alive = req.url === "/healthz";
  res.writeHead(alive ? 200 : 503, { "content-type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(alive ? { status: "ok" } : { error: { code: "unavailable", message: "starting" } }));
};

export async function bindHttpServer(options: HttpServerOptions): Promise<BoundServer> {
  const requestTimeout = options.requestTimeoutSeconds * 1000;
  const server = http.createServer({
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
      handler = app;
    },
  };
}
