// The anomaly chart on plain values in the documented response shape of
// GET /v1/reliability/anomalies/:metric, and its server-rendered SVG.
import { render } from "preact-render-to-string";
import { describe, expect, it } from "vitest";
import { chartGeometry, niceTicks, shortNumber, type ChartBox } from "../../src/web/anomaly-chart.js";
import type { AnomalyBucketView, AnomalySeriesView } from "../../src/services/views.js";
import { AnomalyChart } from "../../src/web/views/charts.js";

const box: ChartBox = { width: 110, height: 120, left: 10, right: 0, top: 10, bottom: 10 };
const bucket = (
  i: number,
  value: number | null,
  band: [number, number] | null,
  extra: Partial<AnomalyBucketView> = {},
): AnomalyBucketView => ({
  start: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
  value,
  expected: band ? (band[0] + band[1]) / 2 : null,
  lower: band ? band[0] : null,
  upper: band ? band[1] : null,
  anomalous: false,
  feedback: false,
  excluded: null,
  ...extra,
});

describe("anomaly chart geometry", () => {
  it("maps buckets onto the plot: x by position, y by value over a padded domain", () => {
    // values 0..100 padded by 5% on each side: domain -5..105 over a 100-unit-high plot
    const g = chartGeometry([bucket(0, 0, [0, 100]), bucket(1, 50, [0, 100]), bucket(2, 100, [0, 100])], box);
    expect(g.domain).toEqual({ min: -5, max: 105 });
    const y = (v: number) => Number((10 + 100 - ((v + 5) / 110) * 100).toFixed(2));
    expect(g.values).toEqual([`10,${y(0)} 60,${y(50)} 110,${y(100)}`]);
    // the band runs along the upper bound and back along the lower one
    expect(g.bands).toEqual([`10,${y(100)} 60,${y(100)} 110,${y(100)} 110,${y(0)} 60,${y(0)} 10,${y(0)}`]);
    expect(g.expected).toEqual([`10,${y(50)} 60,${y(50)} 110,${y(50)}`]);
    expect(g.xLabels.map((l) => l.label)).toEqual(["2026-01-01", "2026-01-03"]);
  });

  it("breaks the band where history is too short and the line where a value is missing", () => {
    const g = chartGeometry([bucket(0, 10, null), bucket(1, 12, [8, 14]), bucket(2, null, [8, 14]), bucket(3, 11, [8, 14])], box);
    expect(g.bands).toHaveLength(1);
    expect(g.bands[0]!.split(" ")).toHaveLength(6);
    expect(g.values).toHaveLength(2);
    expect(g.values[0]!.split(" ")).toHaveLength(2);
  });

  it("marks flagged buckets, telling apart those a person marked as expected", () => {
    const g = chartGeometry(
      [
        bucket(0, 10, [8, 12]),
        bucket(1, 30, [8, 12], { anomalous: true }),
        // as the service answers a marked bucket: no longer anomalous (the scorer never flags feedback)
        bucket(2, 2, [8, 12], { feedback: true }),
        bucket(3, null, [8, 12], { anomalous: true }),
      ],
      box,
    );
    expect(g.flagged.map((f) => [f.bucket.value, f.expected])).toEqual([
      [30, false],
      [2, true],
    ]);
    expect(g.flagged[0]!.y).toBeLessThan(g.flagged[1]!.y); // higher value, nearer the top
  });

  it("gives a flat or empty series a visible range", () => {
    expect(chartGeometry([bucket(0, 5, [5, 5]), bucket(1, 5, [5, 5])], box).domain).toEqual({ min: 4.5, max: 5.5 });
    expect(chartGeometry([bucket(0, 0, [0, 0])], box).domain).toEqual({ min: -1, max: 1 });
    const empty = chartGeometry([], box);
    expect(empty).toMatchObject({ bands: [], values: [], flagged: [], xLabels: [] });
  });

  it("picks round ticks and short labels", () => {
    expect(niceTicks(0, 100)).toEqual([0, 50, 100]);
    expect(niceTicks(-5, 105)).toEqual([0, 50, 100]);
    expect(niceTicks(0.12, 0.5)).toEqual([0.2, 0.3, 0.4, 0.5]);
    expect(niceTicks(3, 3)).toEqual([3]);
    expect(shortNumber(12_345)).toBe("12.3k");
    expect(shortNumber(2_500_000)).toBe("2.5M");
    expect(shortNumber(0.5)).toBe("0.5");
  });
});

describe("anomaly chart SVG", () => {
  it("draws the band, the lines and the flagged points, with an accessible name, escaping every text", () => {
    const series: AnomalySeriesView = {
      rule: "volume_anomaly",
      segment: null,
      measure: "rows",
      grain: "day",
      buckets: [bucket(0, 100, [90, 110]), bucket(1, 180, [90, 110], { anomalous: true }), bucket(2, 101, [90, 110])],
    };
    const svg = render(AnomalyChart({ series, label: `rows <per> "day"` }));
    expect(svg).toMatch(/^<svg class="chart" viewBox="0 0 720 200" role="img" aria-label="rows &lt;per> &quot;day&quot;: 3 buckets/);
    expect(svg.match(/<polygon class="band"/g)).toHaveLength(1);
    expect(svg.match(/<polyline class="value"/g)).toHaveLength(1);
    expect(svg.match(/<circle class="flag"/g)).toHaveLength(1);
    expect(svg).toContain("<title>2026-01-02 00:00 UTC: 180 (flagged)</title>");
    expect(svg).not.toContain("style=");
  });
});
