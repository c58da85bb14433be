// The pages in a real browser: Debian's headless Chromium driven by playwright-core (nothing
// downloads a browser) on the embedded demo daemon. A person logs in, reads the statuses, filters,
// opens an unreliable metric, finds its failing test and sample SQL, starts a scan and logs out;
// a read-only key sees no write button and is refused a forged one. On the demo's planted volume
// drop the metric page draws the anomaly band, and a read-write user marks the flagged bucket as
// expected from the page (a read-only one cannot, even with a forged form). axe-core checks every page
// for serious or critical violations, no page breaks its own Content-Security-Policy, and
// screenshots are written to MR_SCREENSHOT_DIR (.ci/run prints it).
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { combinations, launch, RO_KEY, RW_KEY, waitForStartupScan, type Backend, type RunningDaemon } from "../e2e/daemon-harness.js";
import { EXPECTED_SUMMARY, PLANTED_ANOMALIES, utcDay } from "../e2e/expected.js";
import type { AnomaliesView } from "../../src/services/views.js";

const CHROMIUM = process.env.MR_CHROMIUM ?? "/usr/bin/chromium";
export const SCREENSHOT_DIR = process.env.MR_SCREENSHOT_DIR ?? path.join(os.tmpdir(), "mr-web-screenshots");
// In CI nothing may skip: a missing browser fails the run (launch throws) instead.
const skip = !existsSync(CHROMIUM) && !process.env.CI;

type Violation = { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] };

describe.skipIf(skip)(`pages in headless Chromium (${CHROMIUM})${skip ? " skipped: no Chromium" : ""}`, () => {
  const embedded = combinations.find((c) => c.name === "embedded")!;
  let backend: Backend | undefined;
  let d: RunningDaemon | undefined;
  let browser: Browser | undefined;
  let axeSource: string;
  /** console errors of every page: a page that breaks its own CSP says so here */
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    axeSource = await readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
    backend = await embedded.prepare();
    d = await launch(backend);
    await waitForStartupScan(d);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await d?.stop();
    await backend?.dispose();
  });

  async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser!.newContext({ viewport: { width: 1280, height: 900 }, baseURL: d!.base });
    const page = await context.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(`${page.url()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => consoleErrors.push(`${page.url()}: ${e.message}`));
    return { context, page };
  }

  /** axe-core in the page (evaluated over the DevTools protocol, which the page's CSP does not govern). */
  async function expectAccessible(page: Page, name: string): Promise<void> {
    await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run: (c: Document, o: object) => Promise<{ violations: Violation[] }> } }).axe;
      return (await axe.run(document, { resultTypes: ["violations"] })).violations;
    });
    const serious = violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`);
    expect(serious, `axe on ${name}`).toEqual([]);
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });

  async function logIn(page: Page, key: string): Promise<void> {
    await page.goto("/");
    expect(new URL(page.url()).pathname).toBe("/login");
    await page.getByLabel("API key").fill(key);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL((url) => url.pathname === "/");
  }

  it("walks a read-write user from the login to a failing test's SQL, a scan, and back out", async () => {
    const { context, page } = await newPage();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: d!.base });

    await page.goto("/metric/gross_revenue");
    expect(new URL(page.url()).pathname).toBe("/login");
    await expectAccessible(page, "login");
    await shot(page, "login");
    await logIn(page, RW_KEY);

    // the three statuses, counted
    const counts = page.getByRole("list", { name: "Metrics by status" });
    for (const status of ["unreliable", "degraded", "healthy"] as const) {
      await expect.poll(() => counts.getByRole("link").filter({ hasText: status }).innerText()).toContain(String(EXPECTED_SUMMARY[status]));
    }
    await expect.poll(() => page.locator("header .age").innerText()).toContain("Statuses from the scan that finished");
    await expectAccessible(page, "overview");
    await shot(page, "overview");

    // filter to unreliable
    await page.getByLabel("Status", { exact: true }).selectOption("unreliable");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL((url) => url.searchParams.get("status") === "unreliable");
    const badges = await page.locator("table:not(.incidents) tbody td .badge").allInnerTexts();
    expect(badges).toHaveLength(7);
    expect(new Set(badges)).toEqual(new Set(["unreliable"]));
    await expectAccessible(page, "overview filtered");

    // open an unreliable metric: its failing test, message and sample SQL
    await page.getByRole("rowheader").getByRole("link", { name: "gross_revenue", exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/metric/gross_revenue");
    await expect.poll(() => page.locator("p.reason").innerText()).toContain("Not safe to use");
    const failing = page.locator("article.test").filter({ has: page.locator(".badge.s-failing") });
    await expect.poll(() => failing.count()).toBe(1);
    expect(await failing.innerText()).toContain("measure_not_null");
    expect(await failing.innerText()).toContain("3 of 4,000 rows");
    const sql = failing.locator("pre code");
    expect(await sql.isVisible()).toBe(true);
    expect(await sql.innerText()).toBe("SELECT * FROM `shop`.`orders` WHERE (status = 'completed') AND (`amount` IS NULL) LIMIT 10");
    await failing.getByRole("button", { name: "Copy" }).click();
    await expect.poll(() => failing.getByRole("status").innerText()).toBe("Copied to the clipboard");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await sql.innerText());
    // the 30-day strip is drawn, with its accessible name
    expect(await page.locator("#timeline ~ figure svg[role=img]").getAttribute("aria-label")).toContain("unreliable from");
    // the metric built on it
    expect(await page.locator("section[aria-labelledby=derived]").innerText()).toContain("revenue_per_order");
    await expectAccessible(page, "metric");
    await shot(page, "metric-unreliable");

    // start a scan from the page, and follow it to its end
    await page.getByRole("button", { name: "Scan now" }).click();
    await page.waitForURL((url) => url.searchParams.has("scan"));
    const notice = page.locator(".banner[data-scan]");
    // A scan of the demo reads its anomaly series too: a few seconds on a loaded machine.
    await expect
      .poll(
        async () => {
          await page.reload();
          return notice.innerText();
        },
        { timeout: 30_000 },
      )
      .toContain("succeeded");

    // the blast radius of a table
    await page.getByRole("link", { name: "shop.orders" }).first().click();
    await page.waitForURL((url) => url.pathname === "/table/shop.orders");
    expect(await page.locator("tbody").innerText()).toContain("revenue_per_order");
    await expectAccessible(page, "table");
    await shot(page, "table");

    // a page that does not exist is a page too
    await page.goto("/metric/no_such_metric");
    expect(await page.locator("h1").innerText()).toBe("Not found");
    await expectAccessible(page, "not found");

    // log out: back to the login, and the pages stay shut
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL((url) => url.pathname === "/login");
    await page.goto("/");
    expect(new URL(page.url()).pathname).toBe("/login");
    expect((await context.cookies()).filter((c) => c.name === "mr_session")).toEqual([]);
    await context.close();
  });

  it("shows a read-only key no write button, and refuses a scan it forges", async () => {
    const { context, page } = await newPage();
    await logIn(page, RO_KEY);
    expect(await page.getByRole("button", { name: "Scan now" }).count()).toBe(0);
    await page.goto("/metric/gross_revenue");
    expect(await page.getByRole("button", { name: "Scan now" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: /Mark as expected/ }).count()).toBe(0);
    // a form it builds itself, with its own valid token, is still refused
    const [refused] = await Promise.all([
      page.waitForResponse((res) => new URL(res.url()).pathname === "/scan"),
      page.evaluate(() => {
        const token = (document.querySelector("input[name=_csrf]") as HTMLInputElement).value;
        const form = document.createElement("form");
        form.method = "post";
        form.action = "/scan";
        for (const [name, value] of [
          ["_csrf", token],
          ["next", "/"],
        ]) {
          const input = document.createElement("input");
          input.type = "hidden";
          input.name = name!;
          input.value = value!;
          form.append(input);
        }
        document.body.append(form);
        form.submit();
      }),
    ]);
    expect(refused.status()).toBe(403);
    await page.waitForLoadState();
    expect(await page.locator("h1").innerText()).toBe("Not allowed");
    await expectAccessible(page, "forbidden");
    // the session cookie is out of the page's reach
    expect(await page.evaluate(() => document.cookie)).toBe("");
    const cookie = (await context.cookies()).find((c) => c.name === "mr_session")!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" });
    expect(cookie.expires).toBeGreaterThan(Date.now() / 1000 + 7 * 3600);
    await context.close();
  });

  /** Posts a form the page builds itself (with the page's own CSRF token when it has one) and returns the response. */
  async function forgePost(page: Page, action: string, fields: Record<string, string>) {
    const [response] = await Promise.all([
      page.waitForResponse((res) => new URL(res.url()).pathname === action && res.request().method() === "POST"),
      page.evaluate(
        ({ action, fields }) => {
          const token = (document.querySelector("input[name=_csrf]") as HTMLInputElement).value;
          const form = document.createElement("form");
          form.method = "post";
          form.action = action;
          for (const [name, value] of Object.entries({ _csrf: token, ...fields })) {
            const input = document.createElement("input");
            input.type = "hidden";
            input.name = name;
            input.value = value;
            form.append(input);
          }
          document.body.append(form);
          form.submit();
        },
        { action, fields },
      ),
    ]);
    return response;
  }

  it("shows an unreliable metric's flagged spike inside its drawn band (the README's screenshot)", async () => {
    const { metric, rule, measure } = PLANTED_ANOMALIES.value;
    const { context, page } = await newPage();
    await logIn(page, RO_KEY);
    await page.goto(`/metric/${metric}`);
    // anomalies.severity: high makes the planted spike a HIGH failure: not safe to use
    await expect.poll(() => page.locator("p.reason").innerText()).toContain("Not safe to use");
    expect(await page.locator("p.reason").innerText()).toContain(`${measure} (Sum(amount)) per day is within its expected range`);
    const series = page
      .locator("section[aria-labelledby=anomalies] .series")
      .filter({ has: page.getByRole("heading", { name: `${rule} of ${measure}, per day` }) });
    const chart = series.getByRole("img");
    expect(await chart.getAttribute("aria-label")).toMatch(/; 1 flagged$/);
    expect(await chart.locator("polygon.band").count()).toBeGreaterThan(0);
    expect(await chart.locator("circle.flag:not(.ok)").count()).toBe(1);
    await expectAccessible(page, "unreliable metric with an anomaly");
    await shot(page, "metric-unreliable-anomaly");
    await context.close();
  });

  it("draws the planted volume drop's band; a read-write user marks the flagged bucket expected, a read-only one cannot", async () => {
    const { metric, rule, measure, daysAgo, value } = PLANTED_ANOMALIES.volume;
    const start = `${utcDay(daysAgo)}T00:00:00.000Z`;
    const shown = `${utcDay(daysAgo)} 00:00 UTC`;
    const bucketOf = async () => {
      const view = (await d!.get(`/v1/reliability/anomalies/${metric}`)) as AnomaliesView;
      const series = view.series.find((s) => s.rule === rule && s.measure === measure)!;
      return series.buckets.find((b) => b.start === start)!;
    };
    expect(await bucketOf()).toMatchObject({ value, anomalous: true, feedback: false });

    // read-only: the band and the flagged bucket, no button; a forged form to the button's endpoint is refused
    const ro = await newPage();
    await logIn(ro.page, RO_KEY);
    await ro.page.goto(`/metric/${metric}`);
    const roSection = ro.page.locator("section[aria-labelledby=anomalies]");
    const roRow = roSection.getByRole("row").filter({ hasText: shown });
    expect(await roRow.innerText()).toContain("flagged");
    expect(await roSection.getByRole("button").count()).toBe(0);
    const refused = await forgePost(ro.page, `/metric/${metric}/anomalies/feedback`, { rule, measure, start });
    expect(refused.status()).toBe(403);
    await ro.page.waitForLoadState();
    expect(await ro.page.locator("h1").innerText()).toBe("Not allowed");
    expect(await bucketOf()).toMatchObject({ anomalous: true, feedback: false });
    await ro.context.close();

    // read-write: the chart with its band, an accessible name and the flagged bucket as a table beside it
    const { context, page } = await newPage();
    await logIn(page, RW_KEY);
    await page.goto(`/metric/${metric}`);
    expect(await page.locator("p.reason").innerText()).toContain(`${utcDay(daysAgo)} had ${value} rows`);
    const section = page.locator("section[aria-labelledby=anomalies]");
    const series = section.locator(".series").filter({ has: page.getByRole("heading", { name: `${rule} of ${measure}, per day` }) });
    const chart = series.getByRole("img");
    expect(await chart.isVisible()).toBe(true);
    expect(await chart.getAttribute("aria-label")).toMatch(
      new RegExp(`^${rule} of ${measure}, per day: \\d+ buckets with the expected band; 1 flagged$`),
    );
    expect(await chart.locator("polygon.band").count()).toBeGreaterThan(0);
    // drawn, not degenerate: the band spans a good part of the plot (the first buckets train, without one)
    const bands = await Promise.all((await chart.locator("polygon.band").all()).map((b) => b.boundingBox()));
    expect(Math.max(...bands.map((b) => b!.width))).toBeGreaterThan(100);
    expect(Math.max(...bands.map((b) => b!.height))).toBeGreaterThan(5);
    expect(await chart.locator("circle.flag:not(.ok)").count()).toBe(1);
    const table = series.getByRole("table");
    expect(await table.getByRole("caption").innerText()).toBe("Flagged buckets");
    const row = table.getByRole("row").filter({ hasText: shown });
    expect(await row.innerText()).toContain(String(value));
    await expectAccessible(page, "metric with an anomaly band");
    await shot(page, "metric-degraded");

    // mark it from the page: back on the page, the bucket reads as marked and the API has the feedback
    await row.getByRole("button", { name: `Mark as expected: the bucket of ${shown}` }).click();
    await page.waitForURL((url) => url.pathname === `/metric/${metric}` && url.hash === "#anomalies");
    expect(await row.innerText()).toContain("marked expected");
    expect(await row.getByRole("button").count()).toBe(0);
    expect(await chart.getAttribute("aria-label")).toMatch(/; 0 flagged, 1 marked expected$/);
    expect(await chart.locator("circle.flag.ok").count()).toBe(1);
    expect(await bucketOf()).toMatchObject({ value, anomalous: false, feedback: true });
    await expectAccessible(page, "metric with a bucket marked expected");
    await context.close();
  });

  it("opens an incident from the overview: its tests and the metrics it breaks, accessible", async () => {
    const { context, page } = await newPage();
    await logIn(page, RO_KEY);
    const incidents = page.locator("table.incidents");
    await expectAccessible(page, "overview with open incidents");
    await incidents.getByRole("link", { name: "shop.orders", exact: true }).click();
    await page.waitForURL((url) => url.pathname.startsWith("/incident/"));
    expect(await page.locator("h1").innerText()).toBe("Incident on shop.orders");
    expect(await page.getByRole("rowheader").getByRole("link", { name: "gross_revenue", exact: true }).count()).toBe(1);
    await expectAccessible(page, "incident");
    await shot(page, "incident");
    await context.close();
  });

  it("breaks no page's Content-Security-Policy", () => {
    // the refused scan (403) and the missing metric (404) are the only errors a page may log
    const expected = /Failed to load resource: the server responded with a status of (403|404)/;
    expect(consoleErrors.filter((e) => !expected.test(e))).toEqual([]);
  });
});
