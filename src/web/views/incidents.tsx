// Incidents on the pages: the overview opens with the open ones (one row per broken table), and
// `/incident/:id` lists an incident's tests and the metrics it makes unreliable or degraded.
import type { IncidentSummaryView, IncidentView } from "../../services/incidents.js";
import { count, plural, utc } from "../format.js";
import { Badge, metricHref, tableHref, When } from "./components.js";
import { Layout, type PageContext } from "./layout.js";

export const incidentHref = (id: string) => `/incident/${encodeURIComponent(id)}`;

function Impact({ incident }: { incident: IncidentSummaryView }) {
  return (
    <>
      {incident.metrics_unreliable > 0 ? (
        <>
          {count(incident.metrics_unreliable)} <Badge status="unreliable" />
        </>
      ) : null}
      {incident.metrics_unreliable > 0 && incident.metrics_degraded > 0 ? ", " : null}
      {incident.metrics_degraded > 0 ? (
        <>
          {count(incident.metrics_degraded)} <Badge status="degraded" />
        </>
      ) : null}
    </>
  );
}

/** The overview's first section: nothing but a line when no incident is open. */
export function OpenIncidents({ incidents, now }: { incidents: readonly IncidentSummaryView[]; now: Date }) {
  if (incidents.length === 0) {
    return (
      <section aria-labelledby="incidents" class="panel">
        <h2 id="incidents">Open incidents</h2>
        <p>No open incident: no table has a failing test.</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="incidents">
      <h2 id="incidents">Open incidents ({count(incidents.length)})</h2>
      <table class="incidents">
        <caption>One incident per table with failing tests, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Table</th>
            <th scope="col">Opened</th>
            <th scope="col" class="num">
              Failing tests
            </th>
            <th scope="col">Metrics affected</th>
          </tr>
        </thead>
        <tbody>
          {incidents.map((incident) => (
            <tr>
              <th scope="row">
                <a href={incidentHref(incident.id)}>
                  <code>{incident.table}</code>
                </a>
                {incident.datasource !== "default" ? <span class="muted"> ({incident.datasource})</span> : null}
              </th>
              <td>
                <When at={incident.opened_at} now={now} />
              </td>
              <td class="num">{count(incident.failing_tests)}</td>
              <td>
                <Impact incident={incident} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function IncidentPage({ context, incident }: { context: PageContext; incident: IncidentView }) {
  const { now } = context;
  const open = incident.state === "open";
  return (
    <Layout title={`Incident on ${incident.table}`} context={context}>
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="/">Overview</a> / incident
      </nav>
      <h1>
        Incident on <a href={tableHref(incident.table)}>{incident.table}</a>
      </h1>
      <p>
        {open ? <strong>Open</strong> : "Resolved"}: opened <When at={incident.opened_at} now={now} /> ({utc(incident.opened_at)})
        {incident.resolved_at ? (
          <>
            , resolved <When at={incident.resolved_at} now={now} /> ({utc(incident.resolved_at)})
          </>
        ) : null}
        . It {open ? "makes" : "made"} <Impact incident={incident} />
        {incident.datasource !== "default" ? ` (datasource ${incident.datasource})` : ""}.
      </p>
      <table>
        <caption>
          {plural(incident.tests.length, "test")} of {incident.table} failed during the incident
          {open ? `; ${count(incident.failing_tests)} still failing` : ""}
        </caption>
        <thead>
          <tr>
            <th scope="col">Test</th>
            <th scope="col">Column</th>
            <th scope="col">Severity</th>
            <th scope="col">State</th>
            <th scope="col">Since</th>
            <th scope="col">Latest result</th>
          </tr>
        </thead>
        <tbody>
          {incident.tests.map((test) => (
            <tr>
              <th scope="row">
                {test.name}
                <div class="muted">
                  <code>{test.rule}</code>: <code>{test.check}</code>
                </div>
              </th>
              <td>{test.column ? <code>{test.column}</code> : <span class="muted">—</span>}</td>
              <td>{test.severity}</td>
              <td>
                <Badge status={test.failing ? "failing" : "passing"} />
                {test.until ? (
                  <span class="muted">
                    {" "}
                    since <When at={test.until} now={now} />
                  </span>
                ) : null}
              </td>
              <td>
                <When at={test.since} now={now} />
              </td>
              <td>
                {test.message ?? <span class="muted">not run any more</span>}
                {test.sample_sql ? (
                  <details>
                    <summary>Example rows</summary>
                    <pre>
                      <code>{test.sample_sql}</code>
                    </pre>
                  </details>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <table>
        <caption>{plural(incident.metrics.length, "metric")} it affected, derived metrics included</caption>
        <thead>
          <tr>
            <th scope="col">Metric</th>
            <th scope="col">Impact</th>
            <th scope="col">How</th>
            <th scope="col">Still affected</th>
            <th scope="col">Status now</th>
          </tr>
        </thead>
        <tbody>
          {incident.metrics.map((metric) => (
            <tr>
              <th scope="row">
                <a href={metricHref(metric.metric_name)}>{metric.metric_name}</a>
              </th>
              <td>
                <Badge status={metric.impact} />
              </td>
              <td>{metric.relationship === "derived" ? "built on an affected metric" : "has a failing test"}</td>
              <td>{metric.affected ? "yes" : "no"}</td>
              <td>
                <Badge status={metric.status} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Layout>
  );
}
