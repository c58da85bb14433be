// The frame of every page: header with the age of the data, the banners that say when it is old
// or when scans fail, and the logout button.
import type { ComponentChildren } from "preact";
import type { ScanHealthView } from "../../services/browse-service.js";
import type { ScanView } from "../../services/views.js";
import { ICON, SCRIPT_FILE, STYLESHEET } from "../assets.js";
import { age, duration, plural, utc } from "../format.js";
import type { WebSession } from "../session.js";
import { Badge, CsrfField, ScanButton, When } from "./components.js";

export interface PageContext {
  now: Date;
  /** this page's path and query: where a form sends the browser back to */
  path: string;
  session: WebSession | null;
  health: ScanHealthView | null;
  /** the scan a form just started, shown as a notice */
  notice?: ScanView | null;
}

function DataAge({ health, now }: { health: ScanHealthView; now: Date }) {
  const from = health.statuses_from;
  if (!from?.finished_at) return <span class="age">No scan has finished yet</span>;
  return (
    <span class="age">
      Statuses from the scan that finished{" "}
      <time datetime={from.finished_at} title={utc(from.finished_at)}>
        {age(from.finished_at, now)}
      </time>
    </span>
  );
}

function Banners({ health, now, notice }: { health: ScanHealthView; now: Date; notice: ScanView | null | undefined }) {
  const banners: ComponentChildren[] = [];
  if (health.store_error !== null) {
    banners.push(
      <p class="banner error" role="alert">
        The status store is not answering: these are the last statuses this replica loaded, and scans cannot run until it is back.
      </p>,
    );
  }
  const last = health.last_finished;
  if (last && last.status !== "succeeded") {
    const since = health.statuses_from?.finished_at;
    banners.push(
      <p class="banner error" role="alert">
        <strong>Scans are failing.</strong>{" "}
        {health.failures_since_success > 1
          ? `The last ${plural(health.failures_since_success, "scan")} did not succeed; the newest`
          : "The last scan"}{" "}
        {last.status} <When at={last.finished_at ?? last.started_at} now={now} />
        {last.error ? `: ${last.error}` : ""}.{" "}
        {since ? `The statuses shown are ${age(since, now)} old.` : "No scan has succeeded yet, so every status is unknown."}
      </p>,
    );
  } else if (!health.statuses_from && !health.running) {
    banners.push(
      <p class="banner warn" role="status">
        No scan has finished yet: every metric is unknown until the first scan succeeds.
      </p>,
    );
  }
  if (health.running) {
    banners.push(
      <p class="banner info" role="status">
        A scan is running (started <When at={health.running.started_at} now={now} />
        ).
      </p>,
    );
  }
  if (notice) {
    const took = notice.finished_at ? ` in ${duration(Date.parse(notice.finished_at) - Date.parse(notice.started_at))}` : "";
    banners.push(
      <p class="banner info" role="status" data-scan={notice.scan_id}>
        Scan started <When at={notice.started_at} now={now} />: <Badge status={notice.status} />
        {notice.status === "running" ? " (reload to follow it)" : took}
        {notice.error ? `: ${notice.error}` : ""}
      </p>,
    );
  }
  return <>{banners}</>;
}

export function Layout({ title, context, children }: { title: string; context: PageContext; children: ComponentChildren }) {
  const { session, health, now } = context;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · metric-reliability`}</title>
        <link rel="icon" href={ICON.url} type="image/svg+xml" />
        <link rel="stylesheet" href={STYLESHEET.url} />
        <script src={SCRIPT_FILE.url} defer />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to the content
        </a>
        <header class="top">
          <a class="brand" href="/">
            metric-reliability
          </a>
          {health ? <DataAge health={health} now={now} /> : <span class="age" />}
          <ScanButton session={session} next={context.path} />
          {session ? (
            <form method="post" action="/logout">
              <CsrfField session={session} />
              <span class="muted">{session.access === "write" ? "read-write" : "read-only"} </span>
              <button type="submit">Log out</button>
            </form>
          ) : null}
        </header>
        {health ? <Banners health={health} now={now} notice={context.notice} /> : null}
        <main id="main">{children}</main>
      </body>
    </html>
  );
}
