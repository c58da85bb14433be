// The metric page rendered from plain values: the anomaly section in the documented response
// shape of GET /v1/reliability/anomalies/:metric, its feedback forms (read-write sessions only,
// with the session's token, fields the feedback route accepts), and the reason sentence.
import { render } from "preact-render-to-string";
import { describe, expect, it } from "vitest";
import type { MetricDetailView } from "../../src/services/browse-service.js";
import { anomalyFeedbackInput } from "../../src/api/schemas.js";
import type { AnomaliesView } from "../../src/services/views.js";
import type { WebSession } from "../../src/web/session.js";
import { MetricPage } from "../../src/web/views/metric-page.js";
import { ir } from "../services/fixtures.js";

const now = new Date("2026-01-10T12:00:00Z");
const row = {
  metric_name: "gross_revenue",
  status: "unreliable" as const,
  safe_to_use: false,
  checked_at: "2026-01-10T11:45:00.000Z",
  since: "2026-01-09T08:00:00.000Z",
  kind: "structured" as const,
  failing_tests: 1,
  warning_tests: 0,
  tables: ["shop.orders"],
  inputs: [],
};
const detail: MetricDetailView = {
  ir: ir({ name: "gross_revenue", table: "shop.orders", description: "Revenue <b>of</b> completed orders" }),
  row,
  scan_id: "s1",
  tests: { total: 2, passing: 1, failing: 1, warning: 0 },
  results: [
    {
      metric: "gross_revenue",
      rule: "measure_not_null",
      name: "revenue (amount) is never NULL",
      severity: "HIGH",
      confidence: "high",
      status: "failing",
      rows_affected: 3,
      rows_total: 4000,
      message: "3 of 4,000 rows (0.07%) have NULL amount",
      sample_sql: "SELECT * FROM `shop`.`orders` WHERE (`amount` IS NULL) AND name = '<script>' LIMIT 10",
      check: "amount IS NOT NULL",
    },
  ],
  history: [{ status: "unreliable", from: "2026-01-09T08:00:00.000Z", to: null }],
  inputs: [],
  derived: [],
};
const bucket = (day: number, value: number, anomalous = false, feedback = false, excluded: string | null = null) => ({
  start: new Date(Date.UTC(2026, 0, day)).toISOString(),
  value,
  expected: 100,
  lower: 90,
  upper: 110,
  anomalous,
  feedback,
  excluded,
});
const anomalies: AnomaliesView = {
  metric: "gross_revenue",
  series: [
    {
      rule: "metric_value_anomaly",
      measure: "revenue",
      grain: "day",
      segment: null,
      buckets: [bucket(1, 101), bucket(2, 99), bucket(3, 250, true), bucket(4, 20, false, true), bucket(5, 100)],
    },
  ],
};
const session = (access: WebSession["access"]): WebSession => ({ sid: "s", access, csrfToken: "c".repeat(64), kid: "k", expiresAt: 0 });
const page = (s: WebSession | null, section: Parameters<typeof MetricPage>[0]["anomalies"]) =>
  render(MetricPage({ context: { now, path: "/metric/gross_revenue", session: s, health: null }, detail, anomalies: section }));

describe("metric page", () => {
  it("draws each anomaly series with its band, and offers read-write sessions to mark a flagged bucket as expected", () => {
    const html = page(session("write"), { kind: "series", view: anomalies });
    expect(html).toContain('<section aria-labelledby="anomalies">');
    expect(html).toContain('<polygon class="band"');
    expect(html.match(/<circle class="flag"/g)).toHaveLength(1);
    expect(html.match(/<circle class="flag ok"/g)).toHaveLength(1);
    const forms = [...html.matchAll(/<form method="post" action="\/metric\/gross_revenue\/anomalies\/feedback">(.*?)<\/form>/g)];
    expect(forms).toHaveLength(1); // the bucket already marked expected has no button
    const fields = Object.fromEntries([...forms[0]![1]!.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    expect(fields).toEqual({ _csrf: "c".repeat(64), rule: "metric_value_anomaly", measure: "revenue", start: "2026-01-03T00:00:00.000Z" });
    // what the form posts is what POST /v1/reliability/anomalies/:metric/feedback accepts (the route reads it with that schema)
    expect(anomalyFeedbackInput.parse({ ...fields, metric: "gross_revenue", expected: true })).toEqual({
      metric: "gross_revenue",
      rule: "metric_value_anomaly",
      measure: "revenue",
      start: "2026-01-03T00:00:00.000Z",
      expected: true,
    });
    // the bucket marked expected (no longer anomalous to the scorer) is still listed, as marked
    expect(html).toMatch(/2026-01-04 00:00 UTC<\/th>.*?<td>marked expected<\/td>/);
    expect(html).toContain("1 flagged, 1 marked expected");
  });

  it("draws excluded buckets as a grey band with their reason, and never lists them as flagged", () => {
    const view: AnomaliesView = {
      metric: "gross_revenue",
      series: [
        {
          rule: "metric_value_anomaly",
          measure: "revenue",
          grain: "day",
          segment: null,
          buckets: [
            bucket(1, 5, false, false, "holiday: New Year's Day"),
            bucket(2, 99),
            bucket(3, 250, true),
            // marked expected before the exclusion was declared: excluded now, so not listed
            bucket(4, 20, false, true, "warehouse migration"),
            bucket(5, 21, false, false, "warehouse migration"),
            bucket(6, 100),
          ],
        },
      ],
    };
    const html = page(session("write"), { kind: "series", view });
    const rects = [...html.matchAll(/<rect class="excluded"[^>]*><title>([^<]*)<\/title>/g)].map((m) => m[1]);
    expect(rects).toEqual([
      "2026-01-01 00:00 UTC: excluded (holiday: New Year's Day)",
      "2026-01-04 00:00 UTC – 2026-01-05 00:00 UTC: excluded (warehouse migration)",
    ]);
    expect(html).toContain('<span class="key excluded">');
    expect(html).toContain(
      "Excluded from detection: 2026-01-01 00:00 UTC (holiday: New Year's Day); 2026-01-04 00:00 UTC – 2026-01-05 00:00 UTC (warehouse migration)",
    );
    // The flagged table holds the one anomalous bucket only; the chart marks no excluded bucket.
    expect([...html.matchAll(/<th scope="row">([^<]*)<\/th>/g)].map((m) => m[1])).toContain("2026-01-03 00:00 UTC");
    expect(html).not.toMatch(/2026-01-04 00:00 UTC<\/th>/);
    expect(html.match(/<circle class="flag/g)).toHaveLength(1);
    expect(html).toContain("1 flagged, 3 excluded");
    // Without excluded buckets: no band, no legend entry.
    const plain = page(session("write"), { kind: "series", view: anomalies });
    expect(plain).not.toContain('class="excluded"');
    expect(plain).not.toContain("Excluded from detection");
  });

  it("posts a derived metric's series under its input alias, which the feedback schema accepts", () => {
    const derived: AnomaliesView = {
      metric: "revenue_per_order",
      series: [
        {
          rule: "volume_anomaly",
          measure: "gross_revenue.rows",
          grain: "day",
          segment: null,
          buckets: [bucket(1, 100), bucket(2, 10, true)],
        },
      ],
    };
    const html = page(session("write"), { kind: "series", view: derived });
    const form = /<form method="post" action="\/metric\/gross_revenue\/anomalies\/feedback">(.*?)<\/form>/.exec(html)![1]!;
    const fields = Object.fromEntries([...form.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    expect(fields.measure).toBe("gross_revenue.rows");
    expect(anomalyFeedbackInput.safeParse({ ...fields, metric: "revenue_per_order", expected: true }).success).toBe(true);
  });

  it("shows a read-only session the flagged buckets but no button, and no section at all without an anomaly service", () => {
    const ro = page(session("read"), { kind: "series", view: anomalies });
    expect(ro).toContain("Flagged buckets");
    expect(ro).not.toContain("/anomalies/feedback");
    expect(ro).not.toContain('name="rule"');
    expect(page(session("read"), null)).not.toContain('aria-labelledby="anomalies"');
    expect(page(session("read"), { kind: "error", message: "The anomaly series could not be read just now." })).toContain(
      "The anomaly series could not be read just now.",
    );
  });

  it("says why in one sentence and escapes what the catalogue and the warehouse wrote", () => {
    const html = page(session("read"), null);
    expect(html).toContain('<p class="reason">Not safe to use: the HIGH-severity test “revenue (amount) is never NULL” fails');
    expect(html).toContain("Revenue &lt;b>of&lt;/b> completed orders");
    expect(html).toContain("name = '&lt;script>' LIMIT 10");
    expect(html).not.toContain("<script>'");
  });

  it("segments: the flagged ones first as small multiples, the rest behind a disclosure, no feedback form for them", () => {
    const segment = (value: string | null, other = false) => ({ dimension: "country", value, other });
    const series = (value: string | null, flagged: boolean, other = false) => ({
      rule: "volume_anomaly" as const,
      measure: "rows",
      grain: "day" as const,
      segment: segment(value, other),
      buckets: [bucket(1, 100), bucket(2, flagged ? 0 : 101, flagged)],
    });
    const view: AnomaliesView = {
      metric: "gross_revenue",
      series: [
        { rule: "volume_anomaly", measure: "rows", grain: "day", segment: null, buckets: [bucket(1, 100), bucket(2, 98)] },
        series("BE", true),
        series("DE", false),
        series(null, false),
        series(null, false, true),
      ],
    };
    const html = page(session("write"), { kind: "series", view });
    // The total as before, then the segments of its check under one heading.
    expect(html).toContain('<h3 id="series-0">volume_anomaly of rows, per day</h3>');
    expect(html).toContain('<h3 id="segments-0">volume_anomaly of rows, per day, by country</h3>');
    const [flaggedPart, rest] = html.split("<details>") as [string, string];
    expect(flaggedPart).toContain("<h4>country = 'BE'</h4>");
    expect(flaggedPart).toMatch(/<svg class="chart-small" width="340" height="130" viewBox="0 0 340 130"/);
    expect(flaggedPart).toContain("2026-01-02 00:00 UTC: <strong>0</strong>, expected 90 – 110");
    expect(rest).toContain("<summary>3 more segments by country, none flagged</summary>");
    expect([...rest.matchAll(/<h4>([^<]*)<\/h4>/g)].map((m) => m[1])).toEqual([
      "country = 'DE'",
      "country IS NULL",
      "country (other values)",
    ]);
    // Feedback marks a total's bucket only: no form for a segment's.
    expect(html).not.toContain("/anomalies/feedback");
  });
});
