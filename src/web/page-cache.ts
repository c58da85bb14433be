// A page (a metric's, a table's) is rendered once per what it shows: the read model's view and
// verdicts, the access level, the scan banners and the clock its ages read (RENDERED_FOR_MS), and
// kept as bytes. The session's CSRF token is the one part that differs between people: the page
// is rendered with a marker in its place, and the token goes in when the page is sent.
import { randomBytes } from "node:crypto";
import { RENDERED_FOR_MS } from "./overview-cache.js";
import type { PageContext } from "./views/layout.js";

const PAGES_KEPT = 500;
/** Pages with a session's token in, kept as sent: a person (or a poller) asking again costs a lookup. */
const SENT_KEPT = 200;

/** What a page is built from beside its context: the view and verdicts revision (browse.revision()). */
export interface PageKey {
  /** the page: its path with the query */
  path: string;
  revision: string;
}

/** The page's HTML; keep: false for one that shows a passing failure (the next request renders it again). */
export type PageRenderer = (context: PageContext) => Promise<{ html: string; keep: boolean }>;

export interface PageCache {
  /** The page's bytes for this context: kept, or rendered by `render` and kept. */
  page(key: PageKey, context: PageContext, render: PageRenderer): Promise<Buffer>;
}

export function createPageCache(limit = PAGES_KEPT): PageCache {
  // Long and random: no text on a page can contain it by chance.
  const marker = `csrf-${randomBytes(24).toString("hex")}`;
  const markerBytes = Buffer.from(marker, "utf8");
  const pages = new Map<string, Buffer[]>();
  const sent = new Map<string, Buffer>();

  const assemble = (parts: readonly Buffer[], token: string | undefined): Buffer => {
    if (parts.length === 1) return parts[0]!;
    const tokenBytes = Buffer.from(token ?? "", "utf8");
    const chunks: Buffer[] = [];
    parts.forEach((part, i) => {
      if (i > 0) chunks.push(tokenBytes);
      chunks.push(part);
    });
    return Buffer.concat(chunks);
  };

  return {
    async page(key, context, render) {
      const { session, health } = context;
      // A page with a scan notice is one person's, once: never kept.
      if (context.notice) return Buffer.from((await render(context)).html, "utf8");
      const id = [
        key.path,
        key.revision,
        session?.access ?? "none",
        Math.floor(context.now.getTime() / RENDERED_FOR_MS),
        health?.statuses_from?.scan_id,
        health?.last_finished?.scan_id,
        health?.last_finished?.status,
        health?.running?.scan_id,
        health?.store_error,
        health?.failures_since_success,
      ].join("|");
      const sentId = `${id}|${session?.csrfToken ?? ""}`;
      const again = sent.get(sentId);
      if (again) return again;
      let parts = pages.get(id);
      if (!parts) {
        const rendered = await render(session ? { ...context, session: { ...session, csrfToken: marker } } : context);
        const bytes = Buffer.from(rendered.html, "utf8");
        parts = [];
        let from = 0;
        for (let at = bytes.indexOf(markerBytes, from); at !== -1; at = bytes.indexOf(markerBytes, from)) {
          parts.push(bytes.subarray(from, at));
          from = at + markerBytes.length;
        }
        parts.push(bytes.subarray(from));
        if (!rendered.keep) return assemble(parts, session?.csrfToken);
        if (pages.size >= limit) pages.clear();
        pages.set(id, parts);
      }
      const bytes = assemble(parts, session?.csrfToken);
      if (sent.size >= SENT_KEPT) sent.clear();
      sent.set(sentId, bytes);
      return bytes;
    },
  };
}
