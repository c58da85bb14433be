// Small pieces every page uses: status badges, times, links to tables, the CSRF field.
import type { ComponentChildren } from "preact";
import type { MetricRowView } from "../../services/metric-table.js";
import { age, utc } from "../format.js";
import { CSRF_FIELD } from "../security.js";
import type { WebSession } from "../session.js";

export const metricHref = (name: string) => `/metric/${encodeURIComponent(name)}`;
export const tableHref = (table: string) => `/table/${encodeURIComponent(table)}`;

const STATUS_LABEL: Record<string, string> = {
  healthy: "healthy",
  degraded: "degraded",
  unreliable: "unreliable",
  unknown: "unknown",
  passing: "passing",
  failing: "failing",
  warning: "warning",
  running: "running",
  succeeded: "succeeded",
  failed: "failed",
  aborted: "aborted",
};

/** Colour and word together: the status never rests on colour alone. */
export function Badge({ status }: { status: string }) {
  return <span class={`badge s-${status}`}>{STATUS_LABEL[status] ?? status}</span>;
}

export function When({ at, now }: { at: string | null; now: Date }) {
  if (at === null) return <span class="muted">never</span>;
  return (
    <time datetime={at} title={utc(at)}>
      {age(at, now)}
    </time>
  );
}

export function SafeToUse({ safe }: { safe: boolean }) {
  return safe ? <span>yes</span> : <strong>no</strong>;
}

export function TableLinks({ row }: { row: Pick<MetricRowView, "tables" | "inputs"> }) {
  if (row.tables.length === 0 && row.inputs.length > 0) {
    return (
      <span class="tables">
        <span class="muted">from </span>
        {row.inputs.map((input, i) => (
          <>
            {i > 0 ? ", " : ""}
            <a href={metricHref(input)}>{input}</a>
          </>
        ))}
      </span>
    );
  }
  return (
    <span class="tables">
      {row.tables.map((table, i) => (
        <>
          {i > 0 ? ", " : ""}
          <a href={tableHref(table)}>{table}</a>
        </>
      ))}
    </span>
  );
}

export function CsrfField({ session }: { session: WebSession }) {
  return <input type="hidden" name={CSRF_FIELD} value={session.csrfToken} />;
}

/** Read-write sessions only: the button is not shown to a read-only key at all. */
export function ScanButton({ session, next }: { session: WebSession | null; next: string }) {
  if (session?.access !== "write") return null;
  return (
    <form method="post" action="/scan" class="inline">
      <CsrfField session={session} />
      <input type="hidden" name="next" value={next} />
      <button type="submit" class="primary">
        Scan now
      </button>
    </form>
  );
}

/** The metric rows of the overview and of a table's page. */
export function MetricRows({
  rows,
  now,
  extra,
}: {
  rows: readonly (MetricRowView & { relationship?: string })[];
  now: Date;
  extra?: "relationship";
}) {
  return (
    <tbody>
      {rows.map((row) => (
        <tr>
          <th scope="row">
            <a href={metricHref(row.metric_name)}>{row.metric_name}</a>
          </th>
          {extra === "relationship" ? <td>{row.relationship?.replace("_", " ")}</td> : null}
          <td>
            <Badge status={row.status} />
          </td>
          <td>
            <SafeToUse safe={row.safe_to_use} />
          </td>
          <td>
            <When at={row.since} now={now} />
          </td>
          <td class="num">
            {row.failing_tests}
            {row.warning_tests > 0 ? <span class="muted"> (+{row.warning_tests} warning)</span> : null}
          </td>
          <td>
            <TableLinks row={row} />
          </td>
        </tr>
      ))}
    </tbody>
  );
}

export { STATUSES_WORST_FIRST as STATUSES } from "../../derive/types.js";

export function Section({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}
