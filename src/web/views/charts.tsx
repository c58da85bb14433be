// Server-rendered SVG: the 30-day status strip and an anomaly series with its expected band.
// Each chart has a text equivalent beside it (a list or a table), so nothing rests on the picture.
import { RELIABILITY_STATUSES } from "../../derive/types.js";
import type { AnomalySeriesView } from "../../services/views.js";
import { chartGeometry, DEFAULT_BOX, SMALL_BOX } from "../anomaly-chart.js";
import { utc } from "../format.js";
import type { Timeline } from "../timeline.js";

const STRIP = { width: 720, height: 36, bar: 22 };

export function TimelineChart({ timeline }: { timeline: Timeline }) {
  const label = timeline.segments
    .filter((s) => s.status !== "none")
    .map((s) => `${s.status} from ${utc(s.from)} to ${utc(s.to)}`)
    .join("; ");
  return (
    <figure>
      <svg
        class="chart"
        viewBox={`0 0 ${STRIP.width} ${STRIP.height}`}
        role="img"
        aria-label={`Status over the last 30 days: ${label || "no status recorded"}`}
      >
        {timeline.segments.map((s) => {
          // A period of a few minutes still shows: at least 3 units wide, kept inside the strip.
          const width = Math.max(s.status === "none" ? 0 : 3, (s.x1 - s.x0) * STRIP.width);
          const x = Math.min(s.x0 * STRIP.width, STRIP.width - width);
          return (
            <rect class={`t-${s.status}`} x={x.toFixed(2)} y="0" width={width.toFixed(2)} height={STRIP.bar}>
              <title>{`${s.status === "none" ? "no status recorded" : s.status}: ${utc(s.from)} – ${utc(s.to)}`}</title>
            </rect>
          );
        })}
        <text x="0" y={STRIP.height - 2}>
          {timeline.start.toISOString().slice(0, 10)}
        </text>
        <text x={STRIP.width} y={STRIP.height - 2} text-anchor="end">
          now
        </text>
      </svg>
      <figcaption>
        <ul class="legend">
          {([...RELIABILITY_STATUSES, "none"] as const).map((status) => (
            <li>
              <span class={`key t-${status}`} />
              {status === "none" ? "no status recorded" : status}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}

/**
 * `small`: a segment's small multiple, at SMALL_BOX's own size (the full-width `chart` class
 * would stretch it), so several sit side by side.
 */
export function AnomalyChart({ series, label, small = false }: { series: AnomalySeriesView; label: string; small?: boolean }) {
  const box = small ? SMALL_BOX : DEFAULT_BOX;
  const g = chartGeometry(series.buckets, box);
  const marked = g.flagged.filter((f) => f.expected).length;
  const flagged = g.flagged.length - marked;
  const excluded = series.buckets.filter((b) => b.excluded !== null).length;
  return (
    <svg
      class={small ? "chart-small" : "chart"}
      {...(small ? { width: String(box.width), height: String(box.height) } : {})}
      viewBox={`0 0 ${box.width} ${box.height}`}
      role="img"
      aria-label={`${label}: ${series.buckets.length} buckets with the expected band; ${flagged} flagged${marked > 0 ? `, ${marked} marked expected` : ""}${excluded > 0 ? `, ${excluded} excluded` : ""}`}
    >
      {g.ticks.map((t) => (
        <>
          <line class="grid" x1={box.left} x2={box.width - box.right} y1={t.y} y2={t.y} />
          <text x={box.left - 6} y={t.y + 4} text-anchor="end">
            {t.label}
          </text>
        </>
      ))}
      <line class="axis" x1={box.left} x2={box.left} y1={box.top} y2={box.height - box.bottom} />
      {g.excluded.map((span) => (
        <rect class="excluded" x={span.x} y={box.top} width={span.width} height={box.height - box.top - box.bottom}>
          <title>{`${span.first === span.last ? utc(span.first.start) : `${utc(span.first.start)} – ${utc(span.last.start)}`}: excluded (${span.reason})`}</title>
        </rect>
      ))}
      {g.bands.map((points) => (
        <polygon class="band" points={points} />
      ))}
      {g.expected.map((points) => (
        <polyline class="expected" points={points} />
      ))}
      {g.values.map((points) => (
        <polyline class="value" points={points} />
      ))}
      {g.flagged.map((f) => (
        <circle class={f.expected ? "flag ok" : "flag"} cx={f.x} cy={f.y} r="4.5">
          <title>{`${utc(f.bucket.start)}: ${f.bucket.value ?? "no value"}${f.expected ? " (marked expected)" : " (flagged)"}`}</title>
        </circle>
      ))}
      {g.xLabels.map((l) => (
        <text x={l.x} y={box.height - 6} text-anchor={l.anchor}>
          {l.label}
        </text>
      ))}
    </svg>
  );
}
