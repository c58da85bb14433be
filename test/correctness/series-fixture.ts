// Tables for the anomaly series suites, with every row known here, so each bucket's expected
// count, sum, average, extreme and distinct count is computed from the same rows the warehouse
// holds. Dirty on purpose: NULL timestamps, NULL amounts, a duplicated row, late rows inserted
// into a past bucket after the rest, an empty day, future-dated rows, rows in the current bucket.
// Timestamps are whole seconds relative to `today` (the start of the current UTC day).

export const DAY = 86_400;
export const HOUR = 3_600;

export interface EventRow {
  id: number;
  ts: number | null;
  kind: "a" | "b";
  amount: number | null;
  user: number;
}

/** 20 past days of 12 rows (hours 1..12), one of 5 rows (3 days ago), none 15 days ago, a spike 5 days ago. */
export function eventRows(today: number): { first: EventRow[]; late: EventRow[] } {
  const first: EventRow[] = [];
  let id = 0;
  const add = (ts: number | null, kind: "a" | "b", amount: number | null, user: number) => first.push({ id: ++id, ts, kind, amount, user });
  for (let d = 1; d <= 20; d++) {
    if (d === 15) continue; // an empty day: 0 rows, 0 sum, no average
    const start = today - d * DAY;
    const count = d === 3 ? 5 : 12;
    for (let i = 0; i < count; i++) {
      const amount = d === 2 && i < 2 ? null : d === 5 && i === 0 ? 1000 : 10 + i;
      add(start + (i + 1) * HOUR, i % 2 === 0 ? "a" : "b", amount, (i % 4) + 1);
    }
  }
  // A re-imported row: the same row twice, 7 days ago.
  first.push({ ...first.find((r) => r.ts === today - 7 * DAY + HOUR)!, id: ++id });
  for (let k = 0; k < 7; k++) add(null, "a", 10, 1); // no timestamp: in no bucket
  for (let k = 1; k <= 4; k++) add(today + k * 60, "a", 10, 1); // the current bucket: never scored
  for (let k = 0; k < 2; k++) add(today + 2 * DAY + k, "b", 10, 1); // future-dated
  // Rows that arrive after the rest, into a bucket 10 days back.
  const late = [0, 1, 2].map((k) => ({ id: 1000 + k, ts: today - 10 * DAY + 13 * HOUR + k, kind: "a" as const, amount: 5, user: 9 }));
  return { first, late };
}

const sql = (v: number | null | string) => (v === null ? "NULL" : typeof v === "string" ? `'${v}'` : String(v));

export function insertEvents(db: string, rows: readonly EventRow[]): string {
  const values = rows.map(
    (r) => `(${r.id}, ${r.ts === null ? "NULL" : `toDateTime(${r.ts})`}, ${sql(r.kind)}, ${sql(r.amount)}, ${r.user})`,
  );
  return `INSERT INTO ${db}.events (id, ts, kind, amount, user_id) VALUES ${values.join(", ")}`;
}

export function eventsTable(db: string): string {
  return `CREATE TABLE ${db}.events (id UInt32, ts Nullable(DateTime), kind String, amount Nullable(Float64), user_id UInt32) ENGINE = MergeTree() ORDER BY id`;
}

export type Aggregate = "count" | "sum" | "avg" | "max" | "min" | "distinct";

/** The expected series, oldest first; null = missing (no value in the bucket). */
export function expectedSeries(
  rows: readonly EventRow[],
  starts: readonly number[],
  step: number,
  aggregate: Aggregate,
  keep: (r: EventRow) => boolean = () => true,
): (number | null)[] {
  return starts.map((start) => {
    const inBucket = rows.filter((r) => r.ts !== null && r.ts >= start && r.ts < start + step && keep(r));
    const amounts = inBucket.map((r) => r.amount).filter((a): a is number => a !== null);
    switch (aggregate) {
      case "count":
        return inBucket.length;
      case "sum":
        return amounts.reduce((a, b) => a + b, 0);
      case "avg":
        return amounts.length === 0 ? null : amounts.reduce((a, b) => a + b, 0) / amounts.length;
      case "max":
        return amounts.length === 0 ? null : Math.max(...amounts);
      case "min":
        return amounts.length === 0 ? null : Math.min(...amounts);
      case "distinct":
        return new Set(inBucket.map((r) => r.user)).size;
    }
  });
}

/** Float64Array with NaN for missing -> plain numbers with null, for toEqual. */
export function plain(values: Float64Array): (number | null)[] {
  return Array.from(values, (v) => (Number.isNaN(v) ? null : v));
}
