// The scale benchmark's report: every figure next to its target (issue "Scale to a real catalogue").
import type { LoadResult } from "./load-test.js";
import type { ScanReads } from "./warehouse-reads.js";

export interface ScanFigures {
  n: number;
  /** the first scan (reads everything), a scan of unchanged data, a scan after rows were appended */
  kind: "first" | "unchanged" | "appended";
  /** ClickHouse's account of the scan's queries (system.query_log) */
  reads: ScanReads;
  /** the daemon's count of checks kept, judged again and read (incremental scans) */
  incremental?: Record<string, number>;
  wallMs: number;
  /** the daemon's own split: total, warehouse (series included), series, evaluate, store */
  seconds: Record<string, number>;
  /** anomaly series and cadence queries the scan sent, and tables whose series were judged again without a read */
  seriesQueries?: number;
  seriesReused?: number;
  growthBytes: number;
  /** metrics whose status differs from the previous scan's; null for the first */
  changed: number | null;
}

export interface Report {
  metrics: number;
  tables: number;
  rows: number;
  store: string;
  /** how the daemon was started */
  command: string;
  tests: number;
  startupMs: number;
  compileMs: number;
  scans: ScanFigures[];
  lagMs: { idle: number; scanning: number; load: number };
  scanRss: number;
  peakRss: number;
  /** the peak-RSS target: 400 MB on PostgreSQL, 600 MB with the embedded database in the process */
  rssTargetMb: number;
  dropped: number;
  load: LoadResult[];
  /** the scan after appending rows, against a full scan of the same data */
  comparison: {
    appended: string[];
    differing: number;
    summaryEqual: boolean;
    fullSummary: unknown;
    incrementalSummary: unknown;
  };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const mark = (met: boolean) => (met ? "met" : "NOT met");
const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");

export function printReport(r: Report): void {
  const out: string[] = [];
  const row = (what: string, value: string, target = "", met?: boolean) =>
    out.push(`| ${what} | ${value} | ${target} | ${met === undefined ? "" : mark(met)} |`);
  out.push(
    `# bench:scale: ${r.metrics.toLocaleString("en-US")} metrics (${r.tests.toLocaleString("en-US")} tests) over ${r.tables} tables of ${r.rows.toLocaleString("en-US")} rows; store: ${r.store}; daemon: ${r.command}`,
  );
  out.push("", "| figure | value | target | |", "|---|---|---|---|");
  row("start-up to /readyz", `${fixed(r.startupMs / 1000)} s`);
  row("load, validate and infer the catalogue", `${fixed(r.compileMs / 1000)} s`, "< 3 s", r.compileMs < 3000);
  const first = r.scans.find((s) => s.kind === "first");
  for (const s of r.scans) {
    const { total = NaN, warehouse = NaN, evaluate = NaN, store = NaN } = s.seconds;
    const what =
      s.kind === "first"
        ? "first"
        : s.kind === "unchanged"
          ? "unchanged data"
          : `after appending to ${r.comparison.appended.length} tables`;
    row(
      `scan ${s.n} (${what}): total / warehouse / evaluate / store write`,
      `${fixed(total)} / ${fixed(warehouse)} / ${fixed(evaluate)} / ${fixed(store)} s`,
    );
    if (s.incremental) {
      const { kept = 0, rejudged = 0, read = 0 } = s.incremental;
      row(`scan ${s.n}: distinct checks kept / judged again (freshness) / read`, `${kept} / ${rejudged} / ${read}`);
    }
    // The daemon's overhead over a full read; an incremental scan reads almost nothing, so its
    // target is the wall time instead.
    if (s.kind === "first") row(`scan ${s.n}: total / warehouse`, fixed(total / warehouse), "<= 1.5", total / warehouse <= 1.5);
    // The anomaly rules' series and cadence queries are part of the warehouse time.
    const series = s.seconds.series ?? NaN;
    row(
      `scan ${s.n}: anomaly series queries (share of warehouse)`,
      `${s.seriesQueries ?? "?"} queries${s.seriesReused ? `, ${s.seriesReused} tables judged again from memory` : ""}, ${fixed(series)} s (${fixed((100 * series) / warehouse, 0)} %)`,
    );
    const share = first ? s.reads.bytes / first.reads.bytes : NaN;
    row(
      `scan ${s.n}: bytes ClickHouse read (query_log, ${s.reads.queries} queries)`,
      `${mb(s.reads.bytes)}${s.kind === "first" ? "" : ` (${fixed(share * 100, 3)} % of scan 1)`}`,
      s.kind === "unchanged" ? "< 1 % of scan 1" : "",
      s.kind === "unchanged" ? share < 0.01 : undefined,
    );
    row(
      `scan ${s.n}: wall time (POST ?wait=true)`,
      `${fixed(s.wallMs / 1000)} s`,
      s.kind === "unchanged" ? "< 1 s" : "",
      s.kind === "unchanged" ? s.wallMs < 1000 : undefined,
    );
    row(`scan ${s.n}: store write`, `${fixed(store)} s`, "< 5 s", store < 5);
    row(
      `scan ${s.n}: store growth`,
      mb(s.growthBytes),
      s.kind === "unchanged" ? "< 2 MB (unchanged data)" : "",
      s.kind === "unchanged" ? s.growthBytes < 2 * 1024 * 1024 : undefined,
    );
    if (s.changed !== null && s.kind === "unchanged")
      row(`scan ${s.n}: metrics whose status changed`, String(s.changed), "0", s.changed === 0);
    if (s.kind === "appended") {
      const appended = new Set(r.comparison.appended);
      const tablesRead = new Set(s.reads.tableQueries.flat());
      const appendedRead = [...appended].filter((t) => tablesRead.has(t)).length;
      const stray = s.reads.tableQueries.filter((tables) => !tables.some((t) => appended.has(t))).length;
      const others = [...tablesRead].filter((t) => !appended.has(t)).length;
      row(
        `scan ${s.n}: appended tables read`,
        `${appendedRead} of ${appended.size}`,
        `${appended.size} of ${appended.size}`,
        appendedRead === appended.size,
      );
      row(`scan ${s.n}: table queries that read no appended table`, `${stray} of ${s.reads.tableQueries.length}`, "0", stray === 0);
      row(`scan ${s.n}: other tables read, each only for checks joined to an appended table`, String(others));
      row(
        `scan ${s.n}: metrics whose status differs from a full scan's`,
        String(r.comparison.differing),
        "0",
        r.comparison.differing === 0,
      );
      row(
        `scan ${s.n}: test counts equal to a full scan's`,
        r.comparison.summaryEqual
          ? "yes"
          : `no: ${JSON.stringify(r.comparison.incrementalSummary)} vs ${JSON.stringify(r.comparison.fullSummary)}`,
        "yes",
        r.comparison.summaryEqual,
      );
    }
  }
  row("connections reset by the proxy during the scans", String(r.dropped));
  row("max event-loop lag, idle", `${fixed(r.lagMs.idle, 0)} ms`, "< 200 ms", r.lagMs.idle < 200);
  row("max event-loop lag, scanning", `${fixed(r.lagMs.scanning, 0)} ms`, "< 200 ms", r.lagMs.scanning < 200);
  row("max event-loop lag, under load", `${fixed(r.lagMs.load, 0)} ms`);
  const rssTarget = r.rssTargetMb * 1024 * 1024;
  row("peak RSS after the scans", mb(r.scanRss), `< ${r.rssTargetMb} MB`, r.scanRss < rssTarget);
  row("peak RSS after the load test", mb(r.peakRss), `< ${r.rssTargetMb} MB`, r.peakRss < rssTarget);
  loadRows(r.load, row);
  process.stdout.write(`${out.join("\n")}\n`);
}

type Row = (what: string, value: string, target?: string, met?: boolean) => void;

/** The load test's rows: each path on the daemon against the bare server, with the targets. */
function loadRows(load: LoadResult[], row: Row): void {
  for (const l of load) {
    const ratio = l.daemon.rps / l.bare.rps;
    const name = l.path
      .replace(/status\/[a-z0-9_]+$/, "status/:name")
      .replace(/anomalies\/[a-z0-9_]+$/, "anomalies/:metric")
      .replace(/^\/metric\/[a-z0-9_]+$/, "/metric/:name");
    const label = `${l.page ? `page ${name}` : `GET ${name}`} (${l.connections} connections)`;
    // Single-metric reads (issue 19): half the bare handler's rate, within twice its p99.
    const single = name === "/metric/:name" || name.endsWith("status/:name") || name.endsWith("anomalies/:metric");
    const rateTarget = single || name === "/v1/reliability/status";
    row(
      `${label}: req/s daemon / bare (ratio)`,
      `${fixed(l.daemon.rps, 1)} / ${fixed(l.bare.rps, 1)} (${fixed(ratio)})`,
      rateTarget ? ">= 0.50" : "",
      rateTarget ? ratio >= 0.5 : undefined,
    );
    // The overview's first page and the single-metric reads: within twice the p99 of a bare handler sending the same bytes.
    const p99Target = single || (l.page && name === "/");
    row(
      `${label}: p99 latency daemon / bare`,
      `${l.daemon.p99} / ${l.bare.p99} ms (${fixed(l.daemon.p99 / l.bare.p99)} x)`,
      p99Target ? "<= 2 x bare" : "",
      p99Target ? l.daemon.p99 <= 2 * l.bare.p99 : undefined,
    );
    row(
      `${label}: errors + timeouts, non-2xx (daemon)`,
      `${l.daemon.errors}, ${l.daemon.non2xx}`,
      "0, 0",
      l.daemon.errors === 0 && l.daemon.non2xx === 0,
    );
  }
}

/** `--pages-only`: the pages' rows after one scan, with what the run was. */
export function printPagesReport(r: { metrics: number; tables: number; store: string; tests: number; load: LoadResult[] }): void {
  const out: string[] = [];
  const row: Row = (what, value, target = "", met) =>
    out.push(`| ${what} | ${value} | ${target} | ${met === undefined ? "" : mark(met)} |`);
  out.push(
    `# bench:scale --pages-only: ${r.metrics.toLocaleString("en-US")} metrics (${r.tests.toLocaleString("en-US")} tests) over ${r.tables} tables, one scan; store: ${r.store}`,
  );
  out.push("", "| figure | value | target | |", "|---|---|---|---|");
  loadRows(r.load, row);
  process.stdout.write(`${out.join("\n")}\n`);
}
