// The server is bound before start-up: it answers /healthz at once, 503 to the rest until the
// app is attached, and a busy port is a PortInUseError naming PORT.
import { describe, expect, it } from "vitest";
import { bindHttpServer, PortInUseError } from "../../src/api/http-server.js";

describe("bindHttpServer", () => {
  it("answers while starting, then hands requests to the attached app", async () => {
    const bound = await bindHttpServer({ port: 0, host: "127.0.0.1", requestTimeoutSeconds: 5 });
    const base = `http://127.0.0.1:${bound.port}`;
    try {
      expect(bound.port).toBeGreaterThan(0);
      const health = await fetch(`${base}/healthz`);
      expect([health.status, await health.json()]).toEqual([200, { status: "ok" }]);
      const early = await fetch(`${base}/v1/reliability/status`);
      expect([early.status, await early.json()]).toEqual([503, { error: { code: "unavailable", message: "starting" } }]);
      bound.attach((_req, res) => res.end("attached"));
      expect(await (await fetch(`${base}/v1/reliability/status`)).text()).toBe("attached");
      expect(bound.server.requestTimeout).toBe(5_000);
      expect(bound.server.headersTimeout).toBe(5_000);
    } finally {
      await new Promise((resolve) => bound.server.close(resolve));
    }
  });

  it("refuses a port in use with a PortInUseError naming PORT", async () => {
    const first = await bindHttpServer({ port: 0, host: "127.0.0.1", requestTimeoutSeconds: 30 });
    try {
      const second = bindHttpServer({ port: first.port, host: "127.0.0.1", requestTimeoutSeconds: 30 });
      await expect(second).rejects.toBeInstanceOf(PortInUseError);
      await expect(second).rejects.toThrow(`PORT ${first.port}: 127.0.0.1:${first.port} is already in use`);
    } finally {
      await new Promise((resolve) => first.server.close(resolve));
    }
  });
});
