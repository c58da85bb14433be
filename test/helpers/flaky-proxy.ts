// A TCP proxy the test owns, in front of a ClickHouse server: every Nth chunk a client sends is
// answered by resetting the connection, as a load balancer restart or a crashed pod would; cut()
// resets every connection and refuses new ones, as a dead server would.
import net from "node:net";

export interface FlakyProxy {
  url: string;
  /** connections reset so far */
  dropped(): number;
  /** from now on: every open connection reset, every new one refused */
  cut(): void;
  close(): Promise<void>;
}

export async function startFlakyProxy(upstreamUrl: string, options: { dropEvery: number }): Promise<FlakyProxy> {
  const upstream = new URL(upstreamUrl);
  const sockets = new Set<net.Socket>();
  let chunks = 0;
  let dropped = 0;
  let down = false;
  const server = net.createServer((client) => {
    if (down) {
      client.resetAndDestroy();
      return;
    }
    const target = net.connect(Number(upstream.port), upstream.hostname);
    for (const s of [client, target]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => undefined);
    }
    client.on("data", (chunk) => {
      chunks += 1;
      if (chunks % options.dropEvery === 0) {
        dropped += 1;
        client.resetAndDestroy();
        target.destroy();
        return;
      }
      target.write(chunk);
    });
    target.on("data", (chunk) => client.write(chunk));
    client.on("close", () => target.destroy());
    target.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dropped: () => dropped,
    cut() {
      down = true;
      server.close();
      for (const s of sockets) s.resetAndDestroy();
    },
    async close() {
      for (const s of sockets) s.destroy();
      if (!server.listening) return;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
