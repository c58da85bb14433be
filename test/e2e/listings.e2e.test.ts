// The three listings on the real daemon: pages that add up to the whole list, filters, refused
// cursors, the seed shape without parameters, gzip when asked for, and the same through tRPC.
import { expect, it } from "vitest";
import { RW_KEY, describeCombinations, useDaemon } from "./daemon-harness.js";
import { EXPECTED_STATUS, METRICS } from "./expected.js";

describeCombinations("listings", (combination) => {
  const session = useDaemon(combination);

  /** Follows next_cursor from the first page to the last. */
  async function allPages(path: string, field: string, limit: number) {
    const items: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const sep = path.includes("?") ? "&" : "?";
      const page = await session().d.get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page[field].length).toBeLessThanOrEqual(limit);
      items.push(...page[field]);
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 1000);
    return { items, pages };
  }

  it("tests: pages of 7 add up to the whole list; count covers every page", async () => {
    const { d } = session();
    const whole = await d.get("/v1/validation/tests");
    expect(Object.keys(whole).sort()).toEqual(["count", "tests"]);
    const first = await d.get("/v1/validation/tests?limit=7");
    expect(first).toMatchObject({ count: whole.count });
    expect(typeof first.next_cursor).toBe("string");
    const { items, pages } = await allPages("/v1/validation/tests", "tests", 7);
    expect(items).toEqual(whole.tests);
    expect(pages).toBe(Math.ceil(whole.count / 7));
  });

  it("tests: filters by metric, rule and table", async () => {
    const { d } = session();
    const byMetric = await d.get("/v1/validation/tests?metric=gross_revenue");
    expect(byMetric.tests.length).toBeGreaterThan(0);
    expect(byMetric.tests.every((t: { metric: string }) => t.metric === "gross_revenue")).toBe(true);
    expect(byMetric).toMatchObject({ count: byMetric.tests.length, next_cursor: null });
    const freshness = await d.get("/v1/validation/tests?rule=freshness&table=orders");
    expect(freshness.tests.length).toBeGreaterThan(0);
    expect(freshness.tests.every((t: { rule: string }) => t.rule === "freshness")).toBe(true);
  });

  it("status: pages in catalogue order, a status filter with its own summary", async () => {
    const { d } = session();
    const whole = await d.get("/v1/reliability/status");
    expect(Object.keys(whole).sort()).toEqual(["metrics", "summary"]);
    const { items } = await allPages("/v1/reliability/status", "metrics", 4);
    expect(items).toEqual(whole.metrics);
    const unreliable = await d.get("/v1/reliability/status?status=unreliable");
    const expected = METRICS.filter((m) => EXPECTED_STATUS[m] === "unreliable");
    expect(unreliable.metrics.map((m: { metric_name: string }) => m.metric_name).sort()).toEqual([...expected].sort());
    expect(unreliable.summary).toEqual({ total: expected.length, healthy: 0, degraded: 0, unreliable: expected.length, unknown: 0 });
  });

  it("IR: pages and a metric filter", async () => {
    const { d } = session();
    const whole = await d.get("/v1/compiler/ir");
    const { items } = await allPages("/v1/compiler/ir", "metrics", 5);
    expect(items).toEqual(whole.metrics);
    const one = await d.get("/v1/compiler/ir?metric=order_count");
    expect(one).toMatchObject({ count: 1, next_cursor: null, metrics: [{ name: "order_count" }] });
  });

  it("refuses bad limits and cursors with 400 naming the parameter", async () => {
    const { d } = session();
    for (const query of ["limit=0", "limit=10001", "limit=abc", "cursor=%2F%2F", "cursor=bm9wZQ", "status=broken", "rule=Not-A-Rule"]) {
      const res = await d.request("GET", `/v1/reliability/status?${query}`, { key: RW_KEY });
      if (query.startsWith("rule")) {
        expect(res.status, query).toBe(200); // not a parameter of this listing: ignored
        continue;
      }
      expect(res.status, query).toBe(400);
      expect(res.body.error.message, query).toMatch(/"(limit|cursor|status)"/);
    }
  });

  it("compresses with gzip when the client accepts it", async () => {
    const { d } = session();
    const plain = await d.get("/v1/validation/tests");
    const res = await fetch(`${d.base}/v1/validation/tests`, { headers: { Authorization: `Bearer ${RW_KEY}`, "Accept-Encoding": "gzip" } });
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(await res.json()).toEqual(plain);
    const identity = await d.request("GET", "/v1/validation/tests", { key: RW_KEY });
    expect(identity.headers["content-encoding"]).toBeUndefined();
  });

  it("tRPC takes the same page input", async () => {
    const { d } = session();
    const rest = await d.get("/v1/reliability/status?limit=3");
    const page = await d.trpc(RW_KEY).reliability.status.query({ limit: 3 });
    expect(page).toEqual(rest);
    const next = await d.trpc(RW_KEY).reliability.status.query({ limit: 3, cursor: page.next_cursor! });
    expect(next.metrics[0]).toEqual((await d.get("/v1/reliability/status")).metrics[3]);
  });
});
