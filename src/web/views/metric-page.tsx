// `/metric/:name`: status and why, 30 days of it, every test with its sample SQL, the tables and
// joins it reads, the metrics built on it, and its anomaly series.
import type { MetricDetailView } from "../../services/browse-service.js";
import type { AnomaliesView, AnomalySeriesView, TestResultView } from "../../services/views.js";
import { count, plural, utc } from "../format.js";
import { reasonSentence } from "../reason.js";
import type { WebSession } from "../session.js";
import { excludedRuns } from "../anomaly-chart.js";
import { timeline } from "../timeline.js";
import { AnomalyChart, TimelineChart } from "./charts.js";
import { Badge, CsrfField, metricHref, SafeToUse, Section, TableLinks, tableHref, When } from "./components.js";
import { Layout, type PageContext } from "./layout.js";

/** What the anomaly section has to show: the series, why there are none, or nothing (no anomaly service). */
export type AnomalySection = { kind: "series"; view: AnomaliesView } | { kind: "error"; message: string } | null;

function TestCard({ result, index }: { result: TestResultView; index: number }) {
  const id = `sql-${index}`;
  return (
    <article class="test" aria-labelledby={`test-${index}`}>
      <h3 id={`test-${index}`}>
        <Badge status={result.status} /> <span>{result.name}</span>
        <span class="muted">
          {result.severity} · <code>{result.rule}</code>
        </span>
      </h3>
      <p>{result.message}</p>
      <p class="muted">
        Check: <code>{result.check}</code>
      </p>
      <details open={result.status !== "passing"}>
        <summary>Sample SQL{result.status === "passing" ? "" : ": example violating rows"}</summary>
        <pre>
          <code id={id}>{result.sample_sql}</code>
        </pre>
        <button type="button" class="small" data-copy={id} hidden>
          Copy
        </button>
        <span id={`${id}-status`} role="status" class="muted" />
      </details>
    </article>
  );
}

function Structure({ detail }: { detail: MetricDetailView }) {
  const { ir } = detail;
  const dimensionTables = [...new Set(ir.dimensions.map((d) => d.source_table).filter((t): t is string => t !== null))];
  if (ir.kind === "derived") {
    return (
      <p>
        Derived from{" "}
        {detail.inputs.map((input, i) => (
          <>
            {i > 0 ? ", " : ""}
            <a href={metricHref(input.metric_name)}>{input.metric_name}</a> <Badge status={input.status} />
          </>
        ))}
      </p>
    );
  }
  return (
    <>
      <dl class="facts">
        <dt>Base table</dt>
        <dd>{ir.table ? <a href={tableHref(ir.table)}>{ir.table}</a> : "none"}</dd>
        {ir.filter ? (
          <>
            <dt>Filter</dt>
            <dd>
              <code>{ir.filter}</code>
            </dd>
          </>
        ) : null}
        {dimensionTables.length > 0 ? (
          <>
            <dt>Dimensions read from</dt>
            <dd>
              <TableLinks row={{ tables: dimensionTables, inputs: [] }} />
            </dd>
          </>
        ) : null}
      </dl>
      {ir.joins.length === 0 ? (
        <p class="muted">No joins.</p>
      ) : (
        <table>
          <caption>Joins</caption>
          <thead>
            <tr>
              <th scope="col">Table</th>
              <th scope="col">Type</th>
              <th scope="col">On</th>
              <th scope="col">Relationship</th>
            </tr>
          </thead>
          <tbody>
            {ir.joins.map((j) => (
              <tr>
                <th scope="row">
                  <a href={tableHref(j.table)}>{j.table}</a>
                </th>
                <td>{j.type}</td>
                <td>
                  <code>{`${j.from_table}.${j.left_column} = ${j.table}.${j.right_column}`}</code>
                </td>
                <td>{j.relationship.replace(/_/g, " ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** Excluded spans listed under a chart; a long backtest has many holidays. */
const EXCLUDED_LISTED = 12;

function seriesLabel(series: AnomalySeriesView): string {
  return `${series.rule} of ${series.measure}, per ${series.grain}`;
}

function AnomalySeries({
  metric,
  series,
  index,
  session,
}: {
  metric: string;
  series: AnomalySeriesView;
  index: number;
  session: WebSession | null;
}) {
  const label = seriesLabel(series);
  // Flagged buckets, and those a person marked expected (the scorer no longer flags them);
  // never an excluded one (a holiday, a planned exclusion: it cannot alarm).
  const flagged = series.buckets.filter((b) => (b.anomalous || b.feedback) && b.excluded === null);
  const excluded = excludedRuns(series.buckets);
  return (
    <div class="series">
      <h3 id={`series-${index}`}>{label}</h3>
      <AnomalyChart series={series} label={label} />
      <ul class="legend">
        <li>
          <span class="key band" />
          expected band
        </li>
        <li>
          <span class="key line" />
          observed
        </li>
        <li>
          <span class="key flag" />
          flagged
        </li>
        <li>
          <span class="key flag-ok" />
          marked expected
        </li>
        {excluded.length > 0 ? (
          <li>
            <span class="key excluded" />
            excluded (holiday or planned)
          </li>
        ) : null}
      </ul>
      {excluded.length > 0 ? (
        <p class="muted">
          Excluded from detection:{" "}
          {excluded
            .slice(-EXCLUDED_LISTED)
            .map(({ first, last, reason }) => {
              const from = utc(series.buckets[first]!.start);
              return `${first === last ? from : `${from} – ${utc(series.buckets[last]!.start)}`} (${reason})`;
            })
            .join("; ")}
          {excluded.length > EXCLUDED_LISTED ? ` (the newest ${EXCLUDED_LISTED} of ${excluded.length})` : ""}
        </p>
      ) : null}
      {flagged.length === 0 ? (
        <p class="muted">No bucket flagged.</p>
      ) : (
        <table aria-labelledby={`series-${index}`}>
          <caption>Flagged buckets</caption>
          <thead>
            <tr>
              <th scope="col">Bucket</th>
              <th scope="col" class="num">
                Value
              </th>
              <th scope="col">Expected band</th>
              <th scope="col">Verdict</th>
            </tr>
          </thead>
          <tbody>
            {flagged.map((bucket) => (
              <tr>
                <th scope="row">{utc(bucket.start)}</th>
                <td class="num">{bucket.value === null ? "none" : count(bucket.value)}</td>
                <td>
                  {bucket.lower === null || bucket.upper === null
                    ? "not enough history"
                    : `${count(bucket.lower)} – ${count(bucket.upper)}`}
                </td>
                <td>
                  {bucket.feedback ? (
                    "marked expected"
                  ) : session?.access === "write" ? (
                    <form method="post" action={`${metricHref(metric)}/anomalies/feedback`}>
                      <CsrfField session={session} />
                      <input type="hidden" name="rule" value={series.rule} />
                      <input type="hidden" name="measure" value={series.measure} />
                      <input type="hidden" name="start" value={bucket.start} />
                      <button type="submit" class="small" aria-label={`Mark as expected: the bucket of ${utc(bucket.start)}`}>
                        Mark as expected
                      </button>
                    </form>
                  ) : (
                    "flagged"
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** `country = 'BE'`, `country IS NULL`, `country (other values)`. */
function segmentName(segment: NonNullable<AnomalySeriesView["segment"]>): string {
  if (segment.other) return `${segment.dimension} (other values)`;
  return segment.value === null ? `${segment.dimension} IS NULL` : `${segment.dimension} = '${segment.value}'`;
}

const isFlagged = (series: AnomalySeriesView) => series.buckets.some((b) => b.anomalous && b.excluded === null);

/** One segment's small multiple, its flagged buckets in words beside it. */
function SegmentChart({ series }: { series: AnomalySeriesView }) {
  const name = segmentName(series.segment!);
  const flagged = series.buckets.filter((b) => b.anomalous && b.excluded === null);
  return (
    <div class="segment">
      <h4>{name}</h4>
      <AnomalyChart series={series} label={`${seriesLabel(series)}, ${name}`} small />
      {flagged.length === 0 ? (
        <p class="muted">No bucket flagged.</p>
      ) : (
        <ul>
          {flagged.map((b) => (
            <li>
              {utc(b.start)}: <strong>{b.value === null ? "none" : count(b.value)}</strong>
              {b.lower === null || b.upper === null ? "" : `, expected ${count(b.lower)} – ${count(b.upper)}`}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * The segments of one check (a rule's series of a measure by one dimension): the flagged ones
 * first, side by side as small multiples; the rest behind a disclosure.
 */
function SegmentGroup({ series, index }: { series: AnomalySeriesView[]; index: number }) {
  const first = series[0]!;
  const label = `${seriesLabel(first)}, by ${first.segment!.dimension}`;
  const flagged = series.filter(isFlagged);
  const rest = series.filter((s) => !isFlagged(s));
  return (
    <div class="series">
      <h3 id={`segments-${index}`}>{label}</h3>
      {flagged.length === 0 ? (
        <p class="muted">No segment flagged ({plural(series.length, "segment")}).</p>
      ) : (
        <div class="row" aria-label={`flagged segments of ${label}`}>
          {flagged.map((s) => (
            <SegmentChart series={s} />
          ))}
        </div>
      )}
      {rest.length === 0 ? null : (
        <details>
          <summary>
            {flagged.length === 0 ? `All ${plural(rest.length, "segment")}` : plural(rest.length, "more segment")} by{" "}
            {first.segment!.dimension}, none flagged
          </summary>
          <div class="row">
            {rest.map((s) => (
              <SegmentChart series={s} />
            ))}
          </div>
        </details>
      )}
    </div>
  );
}

/** The totals (one series each), then each segmented check's segments grouped, in the API's order. */
function AnomalySeriesList({ metric, view, session }: { metric: string; view: AnomaliesView; session: WebSession | null }) {
  const groups: { key: string; series: AnomalySeriesView[] }[] = [];
  for (const series of view.series) {
    if (series.segment === null) continue;
    const key = `${series.rule}|${series.measure}|${series.segment.dimension}`;
    const group = groups.find((g) => g.key === key);
    if (group) group.series.push(series);
    else groups.push({ key, series: [series] });
  }
  return (
    <>
      {view.series
        .filter((s) => s.segment === null)
        .map((series, index) => (
          <AnomalySeries metric={metric} series={series} index={index} session={session} />
        ))}
      {groups.map((group, index) => (
        <SegmentGroup series={group.series} index={index} />
      ))}
    </>
  );
}

export function MetricPage({ context, detail, anomalies }: { context: PageContext; detail: MetricDetailView; anomalies: AnomalySection }) {
  const { ir, row } = detail;
  return (
    <Layout title={ir.name} context={context}>
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="/">Overview</a> / metric
      </nav>
      <div class="row">
        <h1>{ir.name}</h1>
        <Badge status={row.status} />
      </div>
      <p class="reason">{reasonSentence({ status: row.status, results: detail.results })}</p>
      <dl class="facts">
        <dt>Safe to use</dt>
        <dd>
          <SafeToUse safe={row.safe_to_use} />
        </dd>
        <dt>Status since</dt>
        <dd>
          <When at={row.since} now={context.now} />
          {row.since ? <span class="muted"> ({utc(row.since)})</span> : null}
        </dd>
        <dt>Last checked</dt>
        <dd>
          <When at={row.checked_at} now={context.now} />
        </dd>
        <dt>Tests</dt>
        <dd>
          {plural(detail.tests.total, "test")}: {count(detail.tests.passing)} passing, {count(detail.tests.failing)} failing,{" "}
          {count(detail.tests.warning)} warning
        </dd>
        {ir.description ? (
          <>
            <dt>Description</dt>
            <dd>{ir.description}</dd>
          </>
        ) : null}
        <dt>Defined in</dt>
        <dd>
          <code>{ir.file}</code> ({ir.kind}, datasource <code>{ir.datasource}</code>)
        </dd>
      </dl>
      <Section id="timeline" title="Last 30 days">
        <TimelineChart timeline={timeline(detail.history, context.now)} />
      </Section>
      <Section id="tests" title={`Tests (${count(detail.results.length)})`}>
        {detail.results.length === 0 ? <p class="muted">No results yet: no scan has checked this metric.</p> : null}
        {detail.results.map((result, index) => (
          <TestCard result={result} index={index} />
        ))}
      </Section>
      <Section id="structure" title="Tables and joins">
        <Structure detail={detail} />
      </Section>
      <Section id="derived" title="Metrics built on this one">
        {detail.derived.length === 0 ? (
          <p class="muted">None.</p>
        ) : (
          <ul>
            {detail.derived.map((d) => (
              <li>
                <a href={metricHref(d.metric_name)}>{d.metric_name}</a> <Badge status={d.status} />
              </li>
            ))}
          </ul>
        )}
      </Section>
      {anomalies === null ? null : (
        <Section id="anomalies" title="Anomalies">
          {anomalies.kind === "error" ? (
            <p class="muted">{anomalies.message}</p>
          ) : anomalies.view.series.length === 0 ? (
            <p class="muted">No anomaly series for this metric.</p>
          ) : (
            <AnomalySeriesList metric={ir.name} view={anomalies.view} session={context.session} />
          )}
        </Section>
      )}
    </Layout>
  );
}
