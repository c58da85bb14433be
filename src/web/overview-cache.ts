// The overview at 10,000 metrics. Its content (counts, last scan, the 50 rows) is the same for
// every session: it is rendered once per read-model view, query, last scan and 10 seconds (the
// ages it prints read "N min ago") and kept, as REST keeps its serialised listings. The page
// around it (the session's forms and token, the banners) is kept as bytes per session for the
// same time, so a person refreshing costs a lookup. Both are bounded.
import { render } from "preact-render-to-string";
import type { IncidentSummaryView } from "../services/incidents.js";
import type { MetricTableView } from "../services/metric-table.js";
import { escapeInvisible } from "./visible-text.js";
import type { PageContext } from "./views/layout.js";
import { OverviewMain, overviewHref, OverviewPage, type OverviewState } from "./views/overview-page.js";

export const RENDERED_FOR_MS = 10_000;
const CONTENTS_KEPT = 200;
const PAGES_KEPT = 100;

function remember<V>(map: Map<string, V>, limit: number, key: string, value: V): V {
  if (map.size >= limit) map.clear();
  map.set(key, value);
  return value;
}

export function createOverviewRenderer(): (
  context: PageContext,
  table: MetricTableView,
  state: OverviewState,
  incidents?: readonly IncidentSummaryView[],
) => Buffer {
  const contents = new Map<string, string>();
  const pages = new Map<string, Buffer>();
  return (context, table, state, incidents = []) => {
    const { health, session } = context;
    const last = health?.last_finished;
    const contentKey = [
      table.as_of,
      overviewHref(state),
      Math.floor(context.now.getTime() / RENDERED_FOR_MS),
      last?.scan_id,
      last?.status,
      // The open incidents come from the same view as the table (as_of), but say so: they are on the page.
      incidents.map((i) => `${i.id}:${i.updated_at}`).join(","),
    ].join("|");
    const pageKey = [
      contentKey,
      session?.csrfToken,
      session?.access,
      context.path,
      health?.statuses_from?.scan_id,
      health?.running?.scan_id,
      health?.store_error,
      health?.failures_since_success,
    ].join("|");
    // A page with a scan notice is one person's, once: never kept.
    const kept = context.notice ? undefined : pages.get(pageKey);
    if (kept) return kept;
    const main =
      contents.get(contentKey) ??
      remember(contents, CONTENTS_KEPT, contentKey, render(OverviewMain({ now: context.now, health, table, state, incidents })));
    const bytes = Buffer.from(escapeInvisible(`<!DOCTYPE html>${render(OverviewPage({ context, main }))}`), "utf8");
    return context.notice ? bytes : remember(pages, PAGES_KEPT, pageKey, bytes);
  };
}
