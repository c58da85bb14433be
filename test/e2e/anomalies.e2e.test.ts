// Anomaly series and feedback through the real daemon, REST and tRPC, on both stores: the demo's
// two planted anomalies (a volume drop 2 days ago, a value spike yesterday) show in the statuses
// and in GET /v1/reliability/anomalies/:metric; feedback takes one back at the next scan; a
// replica that did not run the scan (here: the daemon restarted) reads the series on demand.
import { expect, it } from "vitest";
import { RO_KEY, RW_KEY, describeCombinations, launch, useDaemon } from "./daemon-harness.js";
import { EXPECTED_STATUS, PLANTED_ANOMALIES, utcDay } from "./expected.js";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BUCKET_FIELDS = ["anomalous", "excluded", "expected", "feedback", "lower", "start", "upper", "value"];

interface Bucket {
  start: string;
  value: number | null;
  expected: number | null;
  lower: number | null;
  upper: number | null;
  anomalous: boolean;
  feedback: boolean;
}
interface Series {
  rule: string;
  measure: string;
  grain: string;
  segment: { dimension: string; value: string | null; other: boolean } | null;
  buckets: Bucket[];
}

const dayStart = (daysAgo: number) => `${utcDay(daysAgo)}T00:00:00.000Z`;

describeCombinations("anomaly series and feedback", (combination) => {
  const session = useDaemon(combination);
  const series = async (metric: string): Promise<Series[]> => {
    const body = await session().d.get(`/v1/reliability/anomalies/${metric}`);
    expect(Object.keys(body).sort()).toEqual(["metric", "series"]);
    expect(body.metric).toBe(metric);
    return body.series as Series[];
  };
  const status = async (metric: string) => (await session().d.get(`/v1/reliability/status/${metric}`)).status as string;

  it("the planted anomalies make their metrics degraded, unreliable with anomalies.severity: high; the demo still shows every status", async () => {
    expect(await status(PLANTED_ANOMALIES.volume.metric)).toBe("degraded");
    expect(await status(PLANTED_ANOMALIES.value.metric)).toBe("unreliable");
    const listing = await session().d.get("/v1/reliability/status");
    expect(new Set(listing.metrics.map((m: { status: string }) => m.status))).toEqual(new Set(["healthy", "degraded", "unreliable"]));
    expect(Object.fromEntries(listing.metrics.map((m: { metric_name: string; status: string }) => [m.metric_name, m.status]))).toEqual(
      EXPECTED_STATUS,
    );
  });

  it("GET /v1/reliability/anomalies/:metric: every bucket of the span, oldest first, the volume drop flagged", async () => {
    const [volume, ...more] = await series(PLANTED_ANOMALIES.volume.metric);
    expect(more).toEqual([]); // a row count is the volume series: no metric_value series beside it
    expect(volume).toMatchObject({ rule: "volume_anomaly", measure: "rows", grain: "day" });
    // 84 training + 2 detection days, ending yesterday.
    expect(volume!.buckets).toHaveLength(86);
    expect(volume!.buckets.at(-1)!.start).toBe(dayStart(1));
    expect(volume!.buckets[0]!.start).toBe(dayStart(86));
    for (const [i, b] of volume!.buckets.entries()) {
      expect(Object.keys(b).sort()).toEqual(BUCKET_FIELDS);
      expect(b.start).toMatch(ISO);
      if (i > 0) expect(Date.parse(b.start) - Date.parse(volume!.buckets[i - 1]!.start)).toBe(86_400_000);
      expect(b.feedback).toBe(false);
    }
    const flagged = volume!.buckets.filter((b) => b.anomalous);
    expect(flagged.map((b) => [b.start, b.value])).toEqual([[dayStart(2), PLANTED_ANOMALIES.volume.value]]);
    expect(flagged[0]!.lower!).toBeGreaterThan(PLANTED_ANOMALIES.volume.value);
    expect(flagged[0]!.expected!).toBeGreaterThan(flagged[0]!.lower!);
    // The data begins 69 days back: the span's older days have no value (no history, not zeros),
    // the others are real history, scored once enough precedes them.
    expect(volume!.buckets.filter((b) => b.value === null).map((b) => b.start)).toEqual(
      Array.from({ length: 17 }, (_, i) => dayStart(86 - i)),
    );
    expect(volume!.buckets.at(-1)!.expected).not.toBeNull();
  });

  it("the value spike is in the metric_value series, not in the volume series", async () => {
    const all = await series(PLANTED_ANOMALIES.value.metric);
    expect(all.map((s) => [s.rule, s.measure])).toEqual([
      ["volume_anomaly", "rows"],
      ["metric_value_anomaly", PLANTED_ANOMALIES.value.measure],
    ]);
    expect(all[0]!.buckets.filter((b) => b.anomalous)).toEqual([]);
    expect(all[1]!.buckets.filter((b) => b.anomalous).map((b) => b.start)).toEqual([dayStart(PLANTED_ANOMALIES.value.daysAgo)]);
  });

  it("the planted segment outage: BE flagged by name in its own series, REST and tRPC alike, the totals not; its table one incident", async () => {
    const { d } = session();
    const { metric, dimension, value, daysAgo } = PLANTED_ANOMALIES.segment;
    const all = await series(metric);
    const label = (s: Series) => `${s.rule} ${s.measure}${s.segment ? ` ${s.segment.dimension}=${s.segment.value}` : ""}`;
    // Per check: the total (segment null), then its segments, the flagged one first.
    const countries = ["DE", "FR", "GB", "NL", "US"];
    expect(all.map(label)).toEqual([
      "volume_anomaly rows",
      `volume_anomaly rows ${dimension}=${value}`,
      ...countries.map((c) => `volume_anomaly rows ${dimension}=${c}`),
      "metric_value_anomaly revenue",
      `metric_value_anomaly revenue ${dimension}=${value}`,
      ...countries.map((c) => `metric_value_anomaly revenue ${dimension}=${c}`),
    ]);
    const flagged = (s: Series) => s.buckets.filter((b) => b.anomalous).map((b) => [b.start, b.value]);
    // The totals do not flag the outage day (BE is 4% of it); their own history may hold a flag of
    // the chart's band, which the failing tests below show is not an alert.
    const onOutage = (s: Series) => flagged(s).filter(([start]) => start === dayStart(daysAgo));
    expect(all.filter((s) => s.segment === null).map(onOutage)).toEqual([[], []]);
    expect(all.filter((s) => s.segment?.value === value).map(flagged)).toEqual([[[dayStart(daysAgo), 0]], [[dayStart(daysAgo), 0]]]);
    // The other segments alarm on nothing: neither on the outage day nor in the detection window
    // (the last 2 days). Their history may hold a flag at the calibrated rate (about 0.4 a series
    // a month), as the totals' may: scored from each series' first value, two of them do.
    const recent = (s: Series) =>
      flagged(s).filter(([start]) => start === dayStart(daysAgo) || s.buckets.slice(-2).some((b) => b.start === start));
    expect(all.filter((s) => s.segment !== null && s.segment.value !== value).flatMap(recent)).toEqual([]);
    expect(all[1]!.segment).toEqual({ dimension, value, other: false });
    expect(await d.trpc(RO_KEY).reliability.anomalies.query({ metric })).toEqual(await d.get(`/v1/reliability/anomalies/${metric}`));
    // The failing tests name the segment; their table is one open incident with the metric.
    const detail = await d.get(`/v1/reliability/status/${metric}`);
    expect(detail.failing_tests.map((t: { message: string }) => t.message)).toEqual([
      expect.stringMatching(/^country = 'BE': 1 of 2 days outside the expected range: .* had 0 rows, expected /),
      expect.stringMatching(/^country = 'BE': 1 of 2 days outside the expected range: .* was 0, expected /),
    ]);
    const incidents = (await d.get("/v1/reliability/incidents?state=open")).incidents as { id: string; table: string }[];
    const incident = incidents.find((i) => i.table.endsWith(".web_orders"));
    expect(incident).toBeDefined();
    const full = await d.get(`/v1/reliability/incidents/${incident!.id}`);
    expect(JSON.stringify(full)).toContain(metric);
  });

  it("tRPC answers the same; unknown metrics are 404, a metric without a timestamp has no series", async () => {
    const { d } = session();
    const rest = await d.get(`/v1/reliability/anomalies/${PLANTED_ANOMALIES.volume.metric}`);
    expect(await d.trpc(RO_KEY).reliability.anomalies.query({ metric: PLANTED_ANOMALIES.volume.metric })).toEqual(rest);
    expect(await d.get("/v1/reliability/anomalies/average_product_price")).toEqual({ metric: "average_product_price", series: [] });
    const missing = await d.request("GET", "/v1/reliability/anomalies/no_such_metric", { key: RO_KEY });
    expect(missing).toMatchObject({ status: 404, body: { error: { code: "not_found", message: 'metric "no_such_metric" not found' } } });
    expect((await d.request("GET", "/v1/reliability/anomalies/Bad-Name", { key: RO_KEY })).status).toBe(400);
    await expect(d.trpc(RO_KEY).reliability.anomalies.query({ metric: "no_such_metric" })).rejects.toMatchObject({
      data: { appCode: "not_found", httpStatus: 404 },
    });
    // A derived metric shows its inputs' series, named after them.
    const derived = await d.get("/v1/reliability/anomalies/revenue_per_order");
    expect(derived.series.map((s: Series) => `${s.rule} ${s.measure}`)).toEqual([
      "volume_anomaly gross_revenue.rows",
      "metric_value_anomaly gross_revenue.revenue",
      "volume_anomaly order_count.rows",
    ]);
  });

  it("POST feedback: a read-write key, a flagged bucket of a series the metric has", async () => {
    const { d } = session();
    const post = (metric: string, body: unknown, key = RW_KEY) =>
      d.request("POST", `/v1/reliability/anomalies/${metric}/feedback`, {
        key,
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      });
    const { metric, rule, measure } = PLANTED_ANOMALIES.volume;
    const good = { rule, measure, start: dayStart(2), expected: true };
    expect((await post(metric, good, RO_KEY)).status).toBe(403);
    expect((await post("no_such_metric", good)).status).toBe(404);
    const notFlagged = await post(metric, { ...good, start: dayStart(3) });
    expect(notFlagged).toMatchObject({ status: 400, body: { error: { code: "bad_request" } } });
    expect(notFlagged.body.error.message).toBe(`bucket ${dayStart(3)} of ${metric} volume_anomaly rows was never flagged as anomalous`);
    const wrongMeasure = await post(metric, { ...good, measure: "revenue" });
    expect(wrongMeasure.status).toBe(400);
    expect(wrongMeasure.body.error.message).toBe(`metric "${metric}" has no volume_anomaly series for measure "revenue" (it has: rows)`);
    expect((await post(metric, { ...good, rule: "freshness_anomaly" })).status).toBe(400);
    expect((await post(metric, { ...good, expected: false })).status).toBe(400);
    expect((await post(metric, { ...good, start: "yesterday" })).status).toBe(400);

    const done = await post(metric, good);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ metric, rule, measure, start: dayStart(2), expected: true, created_at: expect.stringMatching(ISO) });
    // Marking it again keeps the first record.
    expect((await post(metric, good)).body).toEqual(done.body);
    // The series shows it at once: expected, no longer flagged.
    const [volume] = await series(metric);
    expect(volume!.buckets.find((b) => b.start === dayStart(2))).toMatchObject({ anomalous: false, feedback: true, value: 12 });
    if (session().backend.storeQuery) {
      const rows = await session().backend.storeQuery!<{ metric: string; rule: string; measure: string; expected: boolean }>(
        `SELECT "metric", "rule", "measure", "expected" FROM "anomaly_feedback"`,
      );
      expect(rows).toEqual([{ metric, rule, measure, expected: true }]);
      // The series was scored again with the mark and stored then (not at the next scan).
      const verdicts = await session().backend.storeQuery!<{ scan_id: string }>(
        `SELECT v."scan_id" FROM "anomaly_verdicts" v JOIN "anomaly_feedback" f ON f."check_id" = v."check_id"`,
      );
      expect(verdicts).toEqual([{ scan_id: "feedback" }]);
    }
  });

  it("tRPC feedback; the next scan stops alerting, and both metrics are healthy again", async () => {
    const { d } = session();
    const { metric, rule, measure, daysAgo } = PLANTED_ANOMALIES.value;
    const stored = await d
      .trpc(RW_KEY)
      .reliability.anomalyFeedback.mutate({ metric, rule, measure, start: dayStart(daysAgo), expected: true });
    expect(stored).toMatchObject({ metric, rule, measure, start: dayStart(daysAgo), expected: true });
    await expect(
      d.trpc(RO_KEY).reliability.anomalyFeedback.mutate({ metric, rule, measure, start: dayStart(daysAgo), expected: true }),
    ).rejects.toMatchObject({ data: { appCode: "forbidden", httpStatus: 403 } });
    // Statuses follow at the next scan.
    expect(await status(metric)).toBe("unreliable");
    const scan = await d.request("POST", "/v1/reliability/scan?wait=true", { key: RW_KEY });
    expect(scan.body.status).toBe("succeeded");
    expect(await status(PLANTED_ANOMALIES.volume.metric)).toBe("healthy");
    expect(await status(metric)).toBe("healthy");
    const detail = await d.get(`/v1/reliability/status/${metric}`);
    expect(detail.failing_tests).toEqual([]);
  });

  it("a replica that did not run the scan draws the series from the store, the same buckets, with its warehouse down", async () => {
    const { backend, d } = session();
    const before = await d.get(`/v1/reliability/anomalies/${PLANTED_ANOMALIES.volume.metric}`);
    const valueBefore = await d.get(`/v1/reliability/anomalies/${PLANTED_ANOMALIES.value.metric}`);
    // PGlite allows one process per data directory: the same daemon restarted, without a start-up
    // scan; on the servers, its ClickHouse is a port nothing listens on (the embedded chdb cannot be down).
    await d.stop();
    const down: Record<string, string> = backend.env.CLICKHOUSE_URL ? { CLICKHOUSE_URL: "http://127.0.0.1:1" } : {};
    const replica = await launch(backend, { SCAN_ON_START: "false", ...down });
    try {
      const after = await replica.get(`/v1/reliability/anomalies/${PLANTED_ANOMALIES.volume.metric}`);
      expect(after).toEqual(before);
      // The feedback of the tests above is in the stored verdicts (scored with it, not flagged).
      expect(await replica.get(`/v1/reliability/anomalies/${PLANTED_ANOMALIES.value.metric}`)).toEqual(valueBefore);
      expect((after.series[0].buckets as Bucket[]).find((b) => b.start === dayStart(2))).toMatchObject({
        anomalous: false,
        feedback: true,
      });
      // The scan's statuses were kept in the store.
      expect((await replica.get(`/v1/reliability/status/${PLANTED_ANOMALIES.volume.metric}`)).status).toBe("healthy");
    } finally {
      await replica.stop();
    }
  });
});
