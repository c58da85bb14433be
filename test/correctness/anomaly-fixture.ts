// Tables for the anomaly rules' correctness suite: 10 weeks of daily sales with a weekly cycle
// and anomalies planted at known days, a stream loaded every 5 minutes that stalled an hour ago,
// a table loaded once a day last loaded 23 hours ago, and a table 5 days young. Dirty like real
// loads: NULL timestamps, a duplicated row, late rows inserted into a past day, future-dated rows.
// Counts per day are computed here (the same numbers the INSERTs use), so every expectation is exact.
// Timestamps are relative to `today` (the start of the current UTC day) and `now` (the server's clock).
export const DAY = 86_400;
const WEEKDAY_EFFECT = [0, 5, 10, 8, 12, -30, -40]; // Monday .. Sunday
/** Days of history (day 0 is today, partly). */
export const DAYS = 70;
/** us rows 2 days ago: a feed that dropped. */
export const US_DROP_DAY = 2;
export const US_DROP_ROWS = 5;
/** yesterday's eu amounts, written in cents: x100. */
export const EU_SPIKE_DAY = 1;
const SLOTS = 160;

const weekday = (today: number, d: number) => (Math.floor((today - d * DAY) / DAY) + 3) % 7;

export function euRows(today: number, d: number): number {
  return 100 + WEEKDAY_EFFECT[weekday(today, d)]! + ((d * 37) % 11);
}
export function usRows(d: number): number {
  return d === US_DROP_DAY ? US_DROP_ROWS : 80 + ((d * 13) % 7);
}

const list = (values: number[]) => `[${values.join(", ")}]`;

export function anomalyStatements(db: string, today: number, now: number): string[] {
  const days = Array.from({ length: DAYS }, (_, d) => d);
  const sales = (region: "eu" | "us", counts: number[], offset: number) =>
    `INSERT INTO ${db}.sales SELECT toUInt32(${offset} + number), ts, '${region}',
       toFloat64(20 + (number * 7) % 30) * if(d = ${EU_SPIKE_DAY} AND '${region}' = 'eu', 100, 1)
     FROM (SELECT number, intDiv(number, ${SLOTS}) AS d, number % ${SLOTS} AS j,
                  ${list(counts)}[d + 1] AS n,
                  toNullable(toDateTime(${today} - d * ${DAY} + intDiv(j * ${DAY}, n))) AS ts
             FROM numbers(${DAYS * SLOTS}))
     WHERE j < n AND ts <= toDateTime(${now})`;
  return [
    `CREATE TABLE ${db}.sales (id UInt32, ts Nullable(DateTime), region String, amount Float64) ENGINE = MergeTree() ORDER BY id`,
    sales(
      "eu",
      days.map((d) => euRows(today, d)),
      1,
    ),
    sales(
      "us",
      days.map((d) => usRows(d)),
      100_000,
    ),
    // Dirty rows: no timestamp (in no bucket), and a re-imported eu row of 3 days ago.
    `INSERT INTO ${db}.sales VALUES (900001, NULL, 'eu', 20), (900002, NULL, 'us', 20)`,
    `INSERT INTO ${db}.sales SELECT toUInt32(900010), ts, region, amount FROM ${db}.sales WHERE ts = toDateTime(${today - 3 * DAY}) AND region = 'eu'`,
    // Late rows into 10 days ago, after the rest was loaded.
    `INSERT INTO ${db}.sales SELECT toUInt32(900020 + number), toDateTime(${today - 10 * DAY + 43_200} + number), 'us', 25 FROM numbers(2)`,

    // A stream loaded every 5 minutes for 40 days; nothing for the last hour.
    `CREATE TABLE ${db}.stream (id UInt32, at DateTime) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${db}.stream SELECT toUInt32(number), toDateTime(${now - 3600} - number * 300) FROM numbers(${(40 * DAY) / 300})`,
    // Loaded once a day for 60 days; the last load was 23 hours ago.
    `CREATE TABLE ${db}.daily_loads (id UInt32, loaded_at DateTime) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${db}.daily_loads SELECT toUInt32(number), toDateTime(${now - 23 * 3600} - number * ${DAY}) FROM numbers(60)`,
    // 5 days young: not enough history to judge.
    `CREATE TABLE ${db}.young (id UInt32, at DateTime) ENGINE = MergeTree() ORDER BY id`,
    `INSERT INTO ${db}.young SELECT toUInt32(number), toDateTime(${now} - number * 600) FROM numbers(${(5 * DAY) / 600})`,
  ];
}

export function anomalyCatalogue(db: string): string {
  return `metrics:
  - name: all_sales
    table: ${db}.sales
    timestamp: ts
    freshness: 7d
    measures:
      - { alias: revenue, function: Sum, column: amount }
      - { alias: basket, function: Avg, column: amount }
  - name: us_sales
    table: ${db}.sales
    timestamp: ts
    freshness: 7d
    filter: "region = 'us'"
    measures:
      - { alias: revenue, function: Sum, column: amount }
  - name: us_sales_strict
    table: ${db}.sales
    timestamp: ts
    freshness: 7d
    filter: "region = 'us'"
    anomalies: { severity: high }
    measures:
      - { alias: orders, function: Count }
  - name: eu_orders
    table: ${db}.sales
    timestamp: ts
    freshness: 7d
    filter: "region = 'eu'"
    measures:
      - { alias: orders, function: Count }
  - name: stream_events
    table: ${db}.stream
    timestamp: at
    measures:
      - { alias: events, function: Count }
  - name: daily_loads
    table: ${db}.daily_loads
    timestamp: loaded_at
    measures:
      - { alias: loads, function: Count }
  - name: young_events
    table: ${db}.young
    timestamp: at
    freshness: 1d
    measures:
      - { alias: events, function: Count }
  - name: not_watched
    table: ${db}.sales
    timestamp: ts
    freshness: 7d
    anomalies: { enabled: false }
    measures:
      - { alias: orders, function: Count }
`;
}
