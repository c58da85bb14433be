// The scale benchmark's report: every figure next to its target (issue "Scale to a real catalogue").
import type { LoadResult } from "./load-test.js";

export interface ScanFigures {
  n: number;
  wallMs: number;
  /** the daemon's own split: total, warehouse, evaluate, store */
  seconds: Record<string, number>;
  growthBytes: number;
  /** metrics whose status differs from the previous scan's; null for the first */
  changed: number | null;
}

export interface Report {
  metrics: number;
  tables: number;
  rows: number;
  store: string;
  tests: number;
  startupMs: number;
  compileMs: number;
  scans: ScanFigures[];
  lagMs: { idle: number; scanning: number; load: number };
  scanRss: number;
  peakRss: number;
  dropped: number;
  load: LoadResult[];
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const mark = (met: boolean) => (met ? "met" : "NOT met");
const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");

export function printReport(r: Report): void {
  const out: string[] = [];
  const row = (what: string, value: string, target = "", met?: boolean) =>
    out.push(`| ${what} | ${value} | ${target} | ${met === undefined ? "" : mark(met)} |`);
  out.push(
    `# bench:scale: ${r.metrics.toLocaleString("en-US")} metrics (${r.tests.toLocaleString("en-US")} tests) over ${r.tables} tables of ${r.rows.toLocaleString("en-US")} rows; store: ${r.store}`,
  );
  out.push("", "| figure | value | target | |", "|---|---|---|---|");
  row("start-up to /readyz", `${fixed(r.startupMs / 1000)} s`);
  row("load, validate and infer the catalogue", `${fixed(r.compileMs / 1000)} s`, "< 3 s", r.compileMs < 3000);
  for (const s of r.scans) {
    const { total = NaN, warehouse = NaN, evaluate = NaN, store = NaN } = s.seconds;
    row(
      `scan ${s.n}: total / warehouse / evaluate / store write`,
      `${fixed(total)} / ${fixed(warehouse)} / ${fixed(evaluate)} / ${fixed(store)} s`,
    );
    row(`scan ${s.n}: total / warehouse`, fixed(total / warehouse), "<= 1.5", total / warehouse <= 1.5);
    row(`scan ${s.n}: store write`, `${fixed(store)} s`, "< 5 s", store < 5);
    row(
      `scan ${s.n}: store growth`,
      mb(s.growthBytes),
      s.n > 1 ? "< 2 MB (unchanged data)" : "first scan",
      s.n > 1 ? s.growthBytes < 2 * 1024 * 1024 : undefined,
    );
    if (s.changed !== null) row(`scan ${s.n}: metrics whose status changed`, String(s.changed), "0", s.changed === 0);
  }
  row("connections reset by the proxy during the scans", String(r.dropped));
  row("max event-loop lag, idle", `${fixed(r.lagMs.idle, 0)} ms`, "< 200 ms", r.lagMs.idle < 200);
  row("max event-loop lag, scanning", `${fixed(r.lagMs.scanning, 0)} ms`, "< 200 ms", r.lagMs.scanning < 200);
  row("max event-loop lag, under load", `${fixed(r.lagMs.load, 0)} ms`);
  row("peak RSS after the scans", mb(r.scanRss), "< 400 MB", r.scanRss < 400 * 1024 * 1024);
  row("peak RSS after the load test", mb(r.peakRss), "< 400 MB", r.peakRss < 400 * 1024 * 1024);
  for (const l of r.load) {
    const ratio = l.daemon.rps / l.bare.rps;
    const name = l.path.replace(/status\/[a-z0-9_]+$/, "status/:name").replace(/^\/metric\/[a-z0-9_]+$/, "/metric/:name");
    const label = l.page ? `page ${name}` : `GET ${name}`;
    row(
      `${label}: req/s daemon / bare (ratio)`,
      `${fixed(l.daemon.rps, 1)} / ${fixed(l.bare.rps, 1)} (${fixed(ratio)})`,
      name === "/v1/reliability/status" ? ">= 0.50" : "",
      name === "/v1/reliability/status" ? ratio >= 0.5 : undefined,
    );
    // The overview's first page: within twice the p99 of a bare handler sending the same HTML.
    const overview = l.page && name === "/";
    row(
      `${label}: p99 latency daemon / bare`,
      `${l.daemon.p99} / ${l.bare.p99} ms`,
      overview ? "<= 2 x bare" : name.endsWith("status/:name") ? "< 50 ms" : "",
      overview ? l.daemon.p99 <= 2 * l.bare.p99 : name.endsWith("status/:name") ? l.daemon.p99 < 50 : undefined,
    );
    row(
      `${label}: errors + timeouts, non-2xx (daemon)`,
      `${l.daemon.errors}, ${l.daemon.non2xx}`,
      "0, 0",
      l.daemon.errors === 0 && l.daemon.non2xx === 0,
    );
  }
  process.stdout.write(`${out.join("\n")}\n`);
}
