// The product, not a copy: real labelled series of the development set (../shared/data/nab-dev,
// NAB) loaded into ClickHouse as tables with metrics on them, scanned by the real daemon, and the
// anomalies API's verdicts per bucket (value, expected, lower, upper, anomalous; the band to the
// single precision the daemon keeps it in) compared with scoreSeries called here on the same
// series and settings, built by the evaluation's protocol (that folder's README): tweets summed per bucket (a bucket with no row is 0; here one row per
// tweet, so the metric is a row count), the ad exchange's cost averaged (a bucket with no row has
// no value); buckets from the first row's to the last row's, less the two partial buckets the
// daemon leaves out by design (see below). The comparison is against the scoring function of
// this checkout, never against stored numbers.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { scoreSeries } from "../../src/anomaly/score-series.js";
import type { AnomalySettings, Grain, SeriesKind } from "../../src/anomaly/types.js";
import type { AnomalyBucketView } from "../../src/services/views.js";
import { RW_KEY, describeCombinations, launch, type Backend, type RunningDaemon } from "./daemon-harness.js";
import { tearDownLoaded, tupleInserts, warehouseAdmin } from "./warehouse-admin.js";

const HOUR = 3600;
const DAY = 86_400;
const STEP: Record<Grain, number> = { hour: HOUR, day: DAY };

/** ../shared/data/nab-dev beside the repository (CI lays shared/ beside the clone), else this machine's copy. */
function nabDir(): string {
  const beside = path.resolve(import.meta.dirname, "../../../shared/data/nab-dev");
  return existsSync(beside) ? beside : "/work/shared/data/nab-dev";
}

interface Row {
  ts: number;
  value: number;
}

async function readNab(file: string): Promise<Row[]> {
  const text = await readFile(path.join(nabDir(), file), "utf8");
  return text
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => {
      const [ts, value] = line.split(",");
      return { ts: Date.parse(`${ts!.replace(" ", "T")}Z`) / 1000, value: Number(value) };
    });
}

/**
 * The rows moved by whole buckets of `grain` (the phases of the other grain move, its own stay) so
 * that the last one falls in the current bucket: the scan then reads up to the newest complete
 * bucket (src/plan/series-query.ts seriesSpan: the current bucket is never judged), and the
 * series it judges is the evaluation's without its last, incomplete, bucket.
 */
function shifted(rows: Row[], grain: Grain, now: number): Row[] {
  const step = STEP[grain];
  const shift = (Math.floor(now / step) - Math.floor(rows.at(-1)!.ts / step)) * step;
  return rows.map((r) => ({ ts: r.ts + shift, value: r.value }));
}

/** The evaluation's series: every bucket from the first row's to the last row's; sum (0 when empty) or average (NaN when empty). */
function protocolSeries(rows: Row[], grain: Grain, how: "sum" | "avg"): { starts: number[]; values: number[] } {
  const step = STEP[grain];
  const first = Math.floor(rows[0]!.ts / step) * step;
  const last = Math.floor(rows.at(-1)!.ts / step) * step;
  const n = (last - first) / step + 1;
  const sum = new Float64Array(n);
  const count = new Float64Array(n);
  for (const r of rows) {
    const i = (Math.floor(r.ts / step) * step - first) / step;
    sum[i] = sum[i]! + r.value;
    count[i] = count[i]! + 1;
  }
  const starts = Array.from({ length: n }, (_, i) => (first + i * step) * 1000);
  const values = Array.from({ length: n }, (_, i) => (how === "sum" ? sum[i]! : count[i]! > 0 ? sum[i]! / count[i]! : Number.NaN));
  return { starts, values };
}

type Bucket = AnomalyBucketView;

type Source = "tweets" | "exchange";
const FILES: Record<Source, string> = {
  tweets: "realTweets/Twitter_volume_CRM.csv",
  exchange: "realAdExchange/exchange-2_cpc_results.csv",
};

interface Case {
  metric: string;
  source: Source;
  grain: Grain;
  rule: "volume_anomaly" | "metric_value_anomaly";
  how: "sum" | "avg";
  kind: SeriesKind;
  training: number;
}

// Twitter mentions of CRM (5-minute counts, 55 days) as one row per tweet, and ad exchange 2's
// cost per click (hourly, 68 days), at both grains. Training: the default 336 hours; 42 days (the
// default 84 is longer than these series).
const CASES: Case[] = [
  { metric: "crm_tweets_hourly", source: "tweets", grain: "hour", rule: "volume_anomaly", how: "sum", kind: "count", training: 336 },
  { metric: "crm_tweets_daily", source: "tweets", grain: "day", rule: "volume_anomaly", how: "sum", kind: "count", training: 42 },
  {
    metric: "exchange_cpc_hourly",
    source: "exchange",
    grain: "hour",
    rule: "metric_value_anomaly",
    how: "avg",
    kind: "value",
    training: 336,
  },
  { metric: "exchange_cpc_daily", source: "exchange", grain: "day", rule: "metric_value_anomaly", how: "avg", kind: "value", training: 42 },
];

/** Equal up to the last few bits: ClickHouse and JavaScript may sum an average's values in another order. */
function close(actual: number | null, expected: number | null): boolean {
  if (actual === null || expected === null) return actual === expected;
  return Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
}

/**
 * A band value: kept in single precision (src/evaluate/series-verdicts.ts) and answered with the
 * fewest digits that read back to it, so within one float32 step (2^-23 of it) of the double.
 */
function closeBand(actual: number | null, expected: number | null): boolean {
  if (actual === null || expected === null) return actual === expected;
  return Math.abs(actual - expected) <= 2 ** -23 * Math.abs(expected) + 1e-9 * Math.max(1, Math.abs(expected));
}

describeCombinations("the anomalies API equals scoreSeries on a real series", (combination) => {
  const db = `mr_nab_${process.pid}_${Date.now().toString(36)}`;
  /** by metric: its table's rows as loaded (one table per source and grain) */
  const rows = new Map<string, Row[]>();
  const tableOf = (c: Case) => `${db}.${c.source}_${c.grain}`;
  let backend: Backend | undefined;
  let d: RunningDaemon | undefined;
  let dir: string | undefined;

  /** Loads the tables and the catalogue for the current hour, starts the daemon and scans. */
  async function loadAndScan(now: number): Promise<RunningDaemon> {
    for (const c of CASES) rows.set(c.metric, shifted(await readNab(FILES[c.source]), c.grain, now));
    // training + detection = the evaluation's buckets less the current one: the API's span starts
    // at the first row's bucket, as the evaluation's series does.
    const spanOf = (c: Case) => protocolSeries(rows.get(c.metric)!, c.grain, c.how).starts.length - 1;
    const measure = (c: Case) =>
      c.source === "tweets" ? "{ alias: tweets, function: Count }" : "{ alias: cpc, function: Avg, column: value }";
    const yaml = [
      "metrics:",
      ...CASES.map(
        (c) =>
          `  - { name: ${c.metric}, table: ${tableOf(c)}, timestamp: ts, measures: [${measure(c)}], anomalies: { grain: ${c.grain}, training_buckets: ${c.training}, detection_buckets: ${spanOf(c) - c.training} } }`,
      ),
      "",
    ].join("\n");
    await writeFile(path.join(dir!, "metrics.yaml"), yaml);
    const daemon = await launch(backend!, { METRICS_DIR: dir!, SCAN_ON_START: "false" });
    const admin = await warehouseAdmin(combination, backend!);
    try {
      await admin.exec(`CREATE DATABASE IF NOT EXISTS ${db}`);
      for (const c of CASES) {
        const table = tableOf(c);
        const loaded = rows.get(c.metric)!;
        await admin.exec(`DROP TABLE IF EXISTS ${table}`);
        if (c.source === "tweets") {
          // One row per tweet: a 5-minute count of 8 is 8 rows at that time.
          await admin.exec(`CREATE TABLE ${table} (ts DateTime) ENGINE = MergeTree() ORDER BY ts`);
          const tuples = loaded.filter((r) => r.value > 0).map((r) => `(${r.ts}, ${r.value})`);
          for (let i = 0; i < tuples.length; i += 1000) {
            await admin.exec(
              `INSERT INTO ${table} SELECT toDateTime(tupleElement(x, 1)) AS ts
               FROM (SELECT x, arrayJoin(range(tupleElement(x, 2))) AS r FROM (SELECT arrayJoin([${tuples.slice(i, i + 1000).join(",")}]) AS x))`,
            );
          }
        } else {
          await admin.exec(`CREATE TABLE ${table} (ts DateTime, value Float64) ENGINE = MergeTree() ORDER BY ts`);
          const tuples = loaded.map((r) => `(${r.ts}, ${String(r.value)})`);
          for (const sql of tupleInserts(table, "toDateTime(tupleElement(x, 1)), toFloat64(tupleElement(x, 2))", tuples))
            await admin.exec(sql);
        }
      }
    } finally {
      await admin.close();
    }
    const scan = await daemon.request("POST", "/v1/reliability/scan?wait=true", { key: RW_KEY });
    expect(scan.status).toBe(200);
    return daemon;
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "mr-e2e-nab-"));
    backend = await combination.prepare();
    // The scan must see the current hour (and day) the rows were placed for: started too close to
    // the end of an hour, wait for the next; if the hour still turned before the scan finished
    // (a slow machine), load and scan again.
    for (let attempt = 1; ; attempt++) {
      const intoHour = (Date.now() / 1000) % HOUR;
      if (intoHour > HOUR - 60) await sleep((HOUR - intoHour + 2) * 1000);
      const now = Date.now() / 1000;
      d = await loadAndScan(now);
      if (Math.floor(Date.now() / 1000 / HOUR) === Math.floor(now / HOUR) || attempt === 3) break;
      await d.stop();
      d = undefined;
    }
  }, 900_000);

  afterAll(() => tearDownLoaded({ combination, backend, daemon: d, db, dir }));

  for (const c of CASES) {
    it(`${c.metric}: ${c.rule} per ${c.grain}, every bucket as scoreSeries judges it`, async () => {
      const ir = await d!.get(`/v1/compiler/ir/${c.metric}`);
      const a = ir.anomalies;
      const settings: AnomalySettings = {
        grain: a.grain,
        training_buckets: a.training_buckets,
        detection_buckets: a.detection_buckets,
        sensitivity: a.sensitivity,
        seasonality: a.seasonality,
      };
      expect(settings).toMatchObject({ grain: c.grain, training_buckets: c.training });
      const body = await d!.get(`/v1/reliability/anomalies/${c.metric}`);
      const series = (body.series as { rule: string; buckets: Bucket[] }[]).find((s) => s.rule === c.rule)!;
      const api = series.buckets;

      // The evaluation's series with the daemon's two rules on partial buckets
      // (src/evaluate/series-values.ts, src/plan/series-query.ts): the bucket the table's first
      // row falls in, only partly covered when that row is not at its start, is missing; the
      // current bucket (the evaluation's last) is never judged.
      const loaded = rows.get(c.metric)!;
      const full = protocolSeries(loaded, c.grain, c.how);
      const evaluation = { starts: full.starts.slice(0, -1), values: full.values.slice(0, -1) };
      if (loaded[0]!.ts * 1000 > evaluation.starts[0]!) evaluation.values[0] = Number.NaN;
      const verdict = scoreSeries(evaluation, settings, c.kind);
      expect(api.map((b) => b.start)).toEqual(evaluation.starts.map((ms) => new Date(ms).toISOString()));
      const mismatches: string[] = [];
      verdict.buckets.forEach((want, i) => {
        const got = api[i]!;
        const value = Number.isFinite(want.value) ? want.value : null;
        const same =
          got.start === new Date(want.start).toISOString() &&
          close(got.value, value) &&
          closeBand(got.expected, want.expected) &&
          closeBand(got.lower, want.lower) &&
          closeBand(got.upper, want.upper) &&
          got.anomalous === want.anomalous &&
          got.excluded === null;
        if (!same) mismatches.push(`${got.start}: api ${JSON.stringify(got)} vs scoreSeries ${JSON.stringify({ ...want, value })}`);
      });
      expect(mismatches.slice(0, 5)).toEqual([]);
      // The comparison means something: most buckets have a band (how many are flagged is the method's business).
      expect(verdict.buckets.filter((b) => b.expected !== null).length).toBeGreaterThan(evaluation.starts.length / 3);
    });
  }
});
