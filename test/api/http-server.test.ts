// The server is bound before start-up: it answers /healthz at once, 503 to the rest until the
// app is attached, and a busy port is a PortInUseError naming PORT.
import http from "node:http";
import express from "express";
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

  it("builds each request and response on the attached app's prototypes, so express need not swap them", async () => {
    const bound = await bindHttpServer({ port: 0, host: "127.0.0.1", requestTimeoutSeconds: 5 });
    const base = `http://127.0.0.1:${bound.port}`;
    try {
      // Before an app is attached: Node's own prototypes.
      const seen: [object | null, object | null][] = [];
      bound.attach((req, res) => {
        seen.push([Object.getPrototypeOf(req) as object, Object.getPrototypeOf(res) as object]);
        res.end();
      });
      await (await fetch(`${base}/a`)).text();
      expect(seen[0]).toEqual([http.IncomingMessage.prototype, http.ServerResponse.prototype]);

      // An app with prototypes of its own (what express' app.request / app.response are) gets
      // objects made on them, before any of its code runs, and still Node's objects.
      const request = Object.create(http.IncomingMessage.prototype) as object;
      const response = Object.create(http.ServerResponse.prototype) as object;
      const app = Object.assign(
        (req: http.IncomingMessage, res: http.ServerResponse) => {
          const made = Object.getPrototypeOf(req) === request && Object.getPrototypeOf(res) === response;
          res.end(JSON.stringify({ made, incoming: req instanceof http.IncomingMessage, url: req.url, method: req.method }));
        },
        { request, response },
      );
      bound.attach(app);
      expect(await (await fetch(`${base}/b?x=1`)).json()).toEqual({ made: true, incoming: true, url: "/b?x=1", method: "GET" });

      // A real express app through it: its request and response methods, a body, a 404.
      const real = express();
      real.use(express.json());
      real.post("/echo/:id", (req, res) => {
        res.status(201).json({
          id: req.params.id,
          header: req.get("x-test"),
          body: req.body as unknown,
          proto: Object.getPrototypeOf(req) === real.request,
        });
      });
      bound.attach(real);
      const echoed = await fetch(`${base}/echo/7`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-test": "yes" },
        body: JSON.stringify({ a: [1, 2] }),
      });
      expect([echoed.status, await echoed.json()]).toEqual([201, { id: "7", header: "yes", body: { a: [1, 2] }, proto: true }]);
      expect((await fetch(`${base}/nowhere`)).status).toBe(404);

      // A plain listener attached after it: Node's prototypes again, not the last app's.
      seen.length = 0;
      bound.attach((req, res) => {
        seen.push([Object.getPrototypeOf(req) as object, Object.getPrototypeOf(res) as object]);
        res.end();
      });
      await (await fetch(`${base}/c`)).text();
      expect(seen[0]).toEqual([http.IncomingMessage.prototype, http.ServerResponse.prototype]);
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
