// `/`: counts by status, the last scan, and the metric table (filter, sort, pages).
import type { ScanHealthView } from "../../services/browse-service.js";
import type { MetricSort, MetricTableView, SortDirection } from "../../services/metric-table.js";
import { count, duration, utc } from "../format.js";
import { DEFAULT_DIRECTION, DEFAULT_SORT, PAGE_SIZE } from "../params.js";
import { Badge, MetricRows, STATUSES, When } from "./components.js";
import type { IncidentSummaryView } from "../../services/incidents.js";
import { OpenIncidents } from "./incidents.js";
import { Layout, type PageContext } from "./layout.js";

export interface OverviewState {
  status: string | undefined;
  q: string | undefined;
  sort: MetricSort;
  dir: SortDirection;
  page: number;
}

/** The overview's URL for a state; parameters at their defaults are left out. */
export function overviewHref(state: OverviewState): string {
  const params = new URLSearchParams();
  if (state.status) params.set("status", state.status);
  if (state.q) params.set("q", state.q);
  if (state.sort !== DEFAULT_SORT || state.dir !== DEFAULT_DIRECTION[state.sort]) {
    params.set("sort", state.sort);
    params.set("dir", state.dir);
  }
  if (state.page > 1) params.set("page", String(state.page));
  const query = params.toString();
  return query ? `/?${query}` : "/";
}

function LastScan({ health, now }: { health: ScanHealthView | null; now: Date }) {
  const last = health?.last_finished;
  if (!last) return <p>No scan has finished yet.</p>;
  const took = last.finished_at ? Date.parse(last.finished_at) - Date.parse(last.started_at) : null;
  return (
    <p>
      Last scan: <Badge status={last.status} /> <When at={last.finished_at} now={now} />
      {last.finished_at ? <span class="muted"> ({utc(last.finished_at)})</span> : null}
      {took !== null ? `, took ${duration(took)}` : ""}, started by {last.trigger.replace("_", " ")}
      {last.summary
        ? `: ${count(last.summary.total)} tests, ${count(last.summary.failing)} failing, ${count(last.summary.warning)} warning`
        : ""}
      {last.error ? `: ${last.error}` : ""}
    </p>
  );
}

const SORT_LABEL: Record<MetricSort, string> = { name: "Metric", status: "Status", since: "Since", failing: "Failing tests" };

function SortHeader({ state, sort, numeric }: { state: OverviewState; sort: MetricSort; numeric?: boolean }) {
  const active = state.sort === sort;
  const dir: SortDirection = active ? (state.dir === "asc" ? "desc" : "asc") : DEFAULT_DIRECTION[sort];
  const ariaSort = active ? (state.dir === "asc" ? "ascending" : "descending") : undefined;
  return (
    <th scope="col" aria-sort={ariaSort} class={numeric ? "num" : undefined}>
      <a href={overviewHref({ ...state, sort, dir, page: 1 })}>
        {SORT_LABEL[sort]}
        {active ? (state.dir === "asc" ? " ▲" : " ▼") : ""}
      </a>
    </th>
  );
}

/**
 * The overview's content, the same for every session (no form, no token): what the daemon may
 * keep rendered for a few seconds (web-app.ts), since it is most of the page's cost.
 */
export function OverviewMain({
  now,
  health,
  table,
  state,
  incidents = [],
}: {
  now: Date;
  health: ScanHealthView | null;
  table: MetricTableView;
  state: OverviewState;
  /** the open incidents, newest first: the page starts with them */
  incidents?: readonly IncidentSummaryView[];
}) {
  const { summary } = table;
  const first = table.matched === 0 ? 0 : (table.page - 1) * PAGE_SIZE + 1;
  const last = first === 0 ? 0 : first + table.rows.length - 1;
  return (
    <>
      <h1>Metric reliability</h1>
      <OpenIncidents incidents={incidents} now={now} />
      <ul class="counts" aria-label="Metrics by status">
        <li>
          <a href={overviewHref({ ...state, status: undefined, page: 1 })} aria-current={state.status === undefined ? "true" : undefined}>
            <span class="n">{count(summary.total)}</span> all metrics
          </a>
        </li>
        {STATUSES.map((status) => (
          <li>
            <a href={overviewHref({ ...state, status, page: 1 })} aria-current={state.status === status ? "true" : undefined}>
              <span class="n">{count(summary[status])}</span> <Badge status={status} />
            </a>
          </li>
        ))}
      </ul>
      <div class="panel">
        <LastScan health={health} now={now} />
      </div>
      <form class="filters" method="get" action="/" role="search">
        <div class="field">
          <label for="f-status">Status</label>
          <select id="f-status" name="status">
            <option value="" selected={state.status === undefined}>
              any
            </option>
            {STATUSES.map((status) => (
              <option value={status} selected={state.status === status}>
                {status}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-q">Metric or table name contains</label>
          <input id="f-q" type="search" name="q" value={state.q ?? ""} maxLength={128} />
        </div>
        {state.sort !== DEFAULT_SORT || state.dir !== DEFAULT_DIRECTION[state.sort] ? (
          <>
            <input type="hidden" name="sort" value={state.sort} />
            <input type="hidden" name="dir" value={state.dir} />
          </>
        ) : null}
        <button type="submit">Filter</button>
        {state.status || state.q ? <a href="/">Clear</a> : null}
      </form>
      <table>
        <caption>
          {table.matched === 0
            ? "No metric matches."
            : `Metrics ${count(first)}–${count(last)} of ${count(table.matched)}${table.matched < summary.total ? ` matching (${count(summary.total)} in all)` : ""}`}
        </caption>
        <thead>
          <tr>
            <SortHeader state={state} sort="name" />
            <SortHeader state={state} sort="status" />
            <th scope="col">Safe to use</th>
            <SortHeader state={state} sort="since" />
            <SortHeader state={state} sort="failing" numeric />
            <th scope="col">Tables</th>
          </tr>
        </thead>
        <MetricRows rows={table.rows} now={now} />
      </table>
      {table.pages > 1 ? (
        <nav class="pager" aria-label="Pages">
          {table.page > 1 ? (
            <a href={overviewHref({ ...state, page: table.page - 1 })}>← Previous</a>
          ) : (
            <span class="muted">← Previous</span>
          )}
          <span>
            Page {count(table.page)} of {count(table.pages)}
          </span>
          {table.page < table.pages ? (
            <a href={overviewHref({ ...state, page: table.page + 1 })}>Next →</a>
          ) : (
            <span class="muted">Next →</span>
          )}
        </nav>
      ) : null}
    </>
  );
}

/** The page around the content, rendered per request: header, banners and the session's forms. */
export function OverviewPage({ context, main }: { context: PageContext; main: string }) {
  return (
    <Layout title="Overview" context={context}>
      {/* rendered by preact-render-to-string from OverviewMain: escaped by the same library */}
      <div dangerouslySetInnerHTML={{ __html: main }} />
    </Layout>
  );
}
