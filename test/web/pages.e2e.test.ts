// The pages over HTTP on the real daemon (both deployments): every page needs a session, the
// login sets a sealed HttpOnly SameSite=Strict cookie, POSTs need the CSRF token and a
// read-write session, hostile paths are clean 400/404 pages, and no key reaches a page, a URL
// or a log line (the daemon logs at trace here).
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { startDaemon, type Daemon } from "../../src/main.js";
import { baseEnv, describeCombinations, RO_KEY, RW_KEY, type Backend } from "../e2e/daemon-harness.js";
import { promSample, utcDay } from "../e2e/expected.js";
import { csrfToken, sessionCookie, webClient, type WebClient } from "./web-client.js";

describeCombinations("pages over HTTP", (combination) => {
  let backend: Backend | undefined;
  let daemon: Daemon | undefined;
  let web: WebClient;
  const logLines: string[] = [];

  beforeAll(async () => {
    backend = await combination.prepare();
    const logger = pino({ level: "trace" }, { write: (line: string) => void logLines.push(line) });
    daemon = await startDaemon(loadConfig({ ...baseEnv(backend), LOG_LEVEL: "trace" }), logger);
    web = webClient(daemon.port);
    for (let i = 0; i < 1200; i++) {
      const text = (await web.get("/metrics")).text;
      if (promSample(text, "metric_reliability_scans_total", { trigger: "startup", outcome: "succeeded" }) === 1) return;
      await sleep(50);
    }
    throw new Error("the start-up scan did not finish");
  });
  afterAll(async () => {
    await daemon?.stop();
    await backend?.dispose();
  });

  it("sends every page to the login without a session, and comes back after it", async () => {
    for (const path of ["/", "/metric/gross_revenue", "/table/shop.orders", "/?status=unreliable"]) {
      const res = await web.get(path);
      expect(res.status, path).toBe(303);
      expect(res.headers.location, path).toBe(path === "/" ? "/login" : `/login?next=${encodeURIComponent(path)}`);
    }
    // a forged or foreign cookie is no session
    expect((await web.get("/", "mr_session=Fe26.2**not-a-seal")).status).toBe(303);
    const login = await web.get("/login?next=%2Fmetric%2Fgross_revenue");
    expect(login.status).toBe(200);
    expect(login.headers["content-type"]).toMatch(/^text\/html/);
    expect(login.text).toContain('<input type="hidden" name="next" value="/metric/gross_revenue"/>');
    // only a path on this site is a place to return to
    expect((await web.get("/login?next=https%3A%2F%2Fevil.example%2F")).text).toContain('name="next" value="/"');
    expect((await web.get("/login?next=%2F%2Fevil.example")).text).toContain('name="next" value="/"');
  });

  it("logs in with a key into a sealed HttpOnly SameSite=Strict cookie with an expiry, and refuses a wrong key", async () => {
    const wrong = await web.post("/login", null, { key: "not-a-key-of-this-daemon", next: "/" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers["set-cookie"]).toBeUndefined();
    expect(wrong.text).toContain("That API key is not valid.");
    expect(wrong.text).not.toContain("not-a-key-of-this-daemon");

    const res = await web.post("/login", null, { key: RW_KEY, next: "/metric/gross_revenue" });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe("/metric/gross_revenue");
    const line = res.headers["set-cookie"]!.find((c) => c.startsWith("mr_session="))!;
    expect(line).toMatch(/; Max-Age=28800; /);
    expect(line).toMatch(/; Path=\//);
    expect(line).toMatch(/; Expires=/);
    expect(line).toMatch(/; HttpOnly/);
    expect(line).toMatch(/; SameSite=Strict/);
    // the seal is encrypted: neither the key nor the access level can be read from it
    expect(line).not.toContain(RW_KEY);
    expect(Buffer.from(line, "latin1").toString()).not.toMatch(/write|read/);
    const cookie = sessionCookie(res)!;
    const page = await web.get("/metric/gross_revenue", cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain("unreliable");
  });

  it("serves the pages with a strict CSP, no caching, and the daemon's own assets", async () => {
    const cookie = await web.login(RO_KEY);
    const res = await web.get("/", cookie);
    expect(res.status).toBe(200);
    expect(res.headers["content-security-policy"]).toBe(
      "default-src 'none';script-src 'self';style-src 'self';img-src 'self';form-action 'self';frame-ancestors 'none';base-uri 'none'",
    );
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers["x-frame-options"]).toBe("DENY");
    expect(res.text).not.toMatch(/<script>|style="| on[a-z]+="/); // nothing inline for the CSP to refuse
    const assets = [...res.text.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    // the files of src/web/assets, each under a URL carrying a hash of its content
    expect(assets.map((url) => url.replace(/\.[0-9a-f]{12}\./, ".HASH.")).sort()).toEqual([
      "/assets/app.HASH.js",
      "/assets/icon.HASH.svg",
      "/assets/style.HASH.css",
    ]);
    const types: Record<string, RegExp> = {
      css: /^text\/css; charset=utf-8$/,
      js: /^text\/javascript; charset=utf-8$/,
      svg: /^image\/svg\+xml/,
    };
    for (const asset of assets) {
      const a = await web.get(asset);
      expect(a.status, asset).toBe(200);
      expect(a.headers["content-type"], asset).toMatch(types[asset.split(".").at(-1)!]!);
      expect(a.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(a.headers["x-content-type-options"]).toBe("nosniff");
      expect(a.text.length, asset).toBeGreaterThan(100);
    }
    expect((await web.get("/assets/style.0000.css")).status).toBe(404);
  });

  it("shows the counts, filters, sorts and pages the metric table", async () => {
    const cookie = await web.login(RO_KEY);
    const all = (await web.get("/", cookie)).text;
    expect(all).toMatch(/<span class="n">17<\/span> all metrics/);
    expect(all).toMatch(/<span class="n">7<\/span> <span class="badge s-unreliable">/);
    expect(all).toMatch(/Last scan: <span class="badge s-succeeded">succeeded<\/span>/);
    const unreliable = (await web.get("/?status=unreliable", cookie)).text;
    expect(unreliable).toContain("Metrics 1–7 of 7 matching (17 in all)");
    expect(unreliable).not.toContain('<th scope="row"><a href="/metric/order_count"');
    const search = (await web.get("/?q=inventory", cookie)).text;
    expect(search).toContain('href="/metric/stock_on_hand"');
    expect(search).toContain("Metrics 1–1 of 1");
    const byName = (await web.get("/?sort=name&dir=desc", cookie)).text;
    const order = [...byName.matchAll(/<th scope="row"><a href="\/metric\/([a-z_]+)"/g)].map((m) => m[1]);
    expect(order).toEqual([...order].sort().reverse());
    expect(byName).toContain('aria-sort="descending"');
  });

  it("answers hostile or unknown paths and parameters with clean 400 and 404 pages, never a 500", async () => {
    const cookie = await web.login(RO_KEY);
    const cases: [path: string, status: number][] = [
      ["/metric/no_such_metric", 404],
      ["/metric/..%2F..%2Fetc%2Fpasswd", 400],
      ["/metric/%3Cscript%3Ealert(1)%3C%2Fscript%3E", 400],
      ["/metric/%E0%A4%A", 400],
      ["/metric/%00", 400],
      [`/metric/${"a".repeat(10_000)}`, 400],
      ["/metric/gross_revenue/extra", 404],
      ["/metric/", 404],
      ["/table/a.b.c", 400],
      ["/table/%27%3B%20DROP%20TABLE%20x", 400],
      ["/table/", 404],
      ["/?status=bogus", 400],
      ["/?page=0", 400],
      ["/?sort=evil", 400],
      [`/?q=${"x".repeat(200)}`, 400],
      ["/?status=unreliable&status=healthy", 400],
      ["/metric/gross_revenue?scan=not-a-uuid", 400],
    ];
    for (const [path, status] of cases) {
      const res = await web.get(path, cookie);
      expect(res.status, path).toBe(status);
      expect(res.headers["content-type"], path).toMatch(/^text\/html/);
      expect(res.headers["content-security-policy"], path).toContain("default-src 'none'");
      expect(res.text, path).not.toContain("<script>alert");
    }
    // a table nobody reads is an empty blast radius, as affected-by answers
    const nobody = await web.get("/table/nowhere.nothing", cookie);
    expect(nobody.status).toBe(200);
    expect(nobody.text).toContain("No metric in the catalogue reads this table");
    const orders = await web.get("/table/shop.orders", cookie);
    expect(orders.text).toContain('href="/metric/revenue_per_order"'); // derived, through gross_revenue
    // the API keeps its JSON errors
    const api = await web.get("/v1/no-such-endpoint");
    expect(api.status).toBe(401);
    expect(api.headers["content-type"]).toMatch(/^application\/json/);
  });

  it("lets only a read-write session with the page's CSRF token start a scan", async () => {
    const ro = await web.login(RO_KEY);
    const roPage = await web.get("/", ro);
    expect(roPage.text).not.toContain('action="/scan"');
    expect((await web.post("/scan", ro, { _csrf: csrfToken(roPage.text), next: "/" })).status).toBe(403);

    const rw = await web.login(RW_KEY);
    const rwPage = await web.get("/", rw);
    expect(rwPage.text).toContain('action="/scan"');
    const token = csrfToken(rwPage.text);
    expect((await web.post("/scan", rw, { next: "/" })).status).toBe(403);
    expect((await web.post("/scan", rw, { _csrf: "0".repeat(64), next: "/" })).status).toBe(403);
    // another session's token is not this one's
    expect((await web.post("/scan", rw, { _csrf: csrfToken(roPage.text), next: "/" })).status).toBe(403);
    // a cross-site form is refused even with the right token
    expect((await web.post("/scan", rw, { _csrf: token, next: "/" }, { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await web.post("/scan", rw, { _csrf: token, next: "/" }, { origin: "https://evil.example" })).status).toBe(403);
    expect((await web.post("/scan", rw, { _csrf: token, next: "/" }, { origin: "null" })).status).toBe(403);
    // behind a proxy that rewrites Host, the browser's host comes as X-Forwarded-Host
    const proxied = await web.post(
      "/scan",
      rw,
      { _csrf: token, next: "/" },
      { origin: "https://status.example.com", "x-forwarded-host": "status.example.com" },
    );
    expect(proxied.status).toBe(303);
    // without a session a POST goes to the login
    expect((await web.post("/scan", null, { _csrf: token })).headers.location).toBe("/login");

    const started = await web.post("/scan", rw, { _csrf: token, next: "/metric/gross_revenue" }, { "sec-fetch-site": "same-origin" });
    expect(started.status).toBe(303);
    const location = started.headers.location!;
    expect(location).toMatch(/^\/metric\/gross_revenue\?scan=[0-9a-f-]{36}$/);
    const scanId = location.split("=")[1]!;
    let notice = "";
    for (let i = 0; i < 200 && !notice.includes("s-succeeded"); i++) {
      await sleep(50);
      notice = /<p class="banner info" role="status" data-scan="[^"]+">.*?<\/p>/.exec((await web.get(location, rw)).text)?.[0] ?? "";
    }
    expect(notice).toContain(`data-scan="${scanId}"`);
    expect(notice).toContain("succeeded");
  });

  it("refuses anomaly feedback from a read-only session and on a bucket that was never flagged; takes it on a flagged one", async () => {
    const fields = { rule: "volume_anomaly", measure: "rows", start: "2026-01-01T00:00:00.000Z" };
    const ro = await web.login(RO_KEY);
    const roToken = csrfToken((await web.get("/", ro)).text);
    expect((await web.post("/metric/gross_revenue/anomalies/feedback", ro, { ...fields, _csrf: roToken })).status).toBe(403);
    const rw = await web.login(RW_KEY);
    const token = csrfToken((await web.get("/", rw)).text);
    expect((await web.post("/metric/gross_revenue/anomalies/feedback", rw, { ...fields })).status).toBe(403); // no token
    const res = await web.post("/metric/gross_revenue/anomalies/feedback", rw, { ...fields, _csrf: token });
    expect(res.status).toBe(400);
    expect(res.text).toContain("was never flagged as anomalous");
    expect((await web.post("/metric/gross_revenue/anomalies/feedback", rw, { ...fields, start: "yesterday", _csrf: token })).status).toBe(
      400,
    );
    // read by the API's own feedback schema: the same 400s as POST /v1/reliability/anomalies/:metric/feedback
    const noMeasure = await web.post("/metric/gross_revenue/anomalies/feedback", rw, { ...fields, measure: "", _csrf: token });
    expect(noMeasure.status).toBe(400);
    expect(noMeasure.text).toContain("invalid parameter &quot;measure&quot;: expected a measure name");
    const freshness = await web.post("/metric/gross_revenue/anomalies/feedback", rw, {
      ...fields,
      rule: "freshness_anomaly",
      _csrf: token,
    });
    expect(freshness.status).toBe(400);
    expect(freshness.text).toContain("expected one of volume_anomaly, metric_value_anomaly");
    // The demo's planted volume drop, 2 days ago: the form posts the series' own measure ("rows").
    const start = `${utcDay(2)}T00:00:00.000Z`;
    const done = await web.post("/metric/deliveries_shipped/anomalies/feedback", rw, { ...fields, start, _csrf: token });
    expect(done.status).toBe(303);
    // It asks the next page, whichever replica serves it, for at least the scan this one serves.
    const scanId = String((await web.get("/", rw)).headers["x-scan-id"]);
    expect(done.headers.location).toBe(`/metric/deliveries_shipped?min_scan=${scanId}#anomalies`);
    const next = await web.get(done.headers.location!.replace(/#.*/, ""), rw);
    expect(next.status).toBe(200);
    expect(next.headers["x-scan-id"]).toBe(scanId);
  });

  it("draws the demo's planted segment outage: BE flagged first as a small multiple, the other countries behind a disclosure", async () => {
    const cookie = await web.login(RO_KEY);
    const html = (await web.get("/metric/web_orders", cookie)).text;
    const group = html.slice(html.indexOf('<h3 id="segments-0">'));
    expect(group).toMatch(/^<h3 id="segments-0">volume_anomaly of rows, per day, by country<\/h3>/);
    const [flagged, rest] = group.split("<details>") as [string, string];
    expect([...flagged.matchAll(/<h4>([^<]*)<\/h4>/g)].map((m) => m[1])).toEqual(["country = 'BE'"]);
    expect(flagged).toContain(`${utcDay(1)} 00:00 UTC: <strong>0</strong>, expected `);
    expect(rest).toMatch(/^<summary>5 more segments by country, none flagged<\/summary>/);
    // The totals are drawn on their own, unflagged.
    expect(html).toMatch(/<h3 id="series-0">volume_anomaly of rows, per day<\/h3>.*?No bucket flagged\./);
  });

  it("logs out: the cookie is cleared and the pages send the browser to the login again", async () => {
    const cookie = await web.login(RW_KEY);
    const token = csrfToken((await web.get("/", cookie)).text);
    expect((await web.post("/logout", cookie, {})).status).toBe(403); // no token
    const res = await web.post("/logout", cookie, { _csrf: token });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe("/login");
    const cleared = res.headers["set-cookie"]!.find((c) => c.startsWith("mr_session="))!;
    expect(cleared).toMatch(/^mr_session=; Path=\/; Expires=Thu, 01 Jan 1970/);
  });

  it("never writes a key into a log line", () => {
    expect(logLines.length).toBeGreaterThan(20);
    const leaked = logLines.filter((line) => line.includes(RW_KEY) || line.includes(RO_KEY) || line.includes("not-a-key-of-this-daemon"));
    expect(leaked).toEqual([]);
    // the login is logged as a path, its body never
    expect(logLines.some((line) => line.includes('"path":"/login"'))).toBe(true);
  });
});
