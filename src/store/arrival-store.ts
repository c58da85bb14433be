// freshness_anomaly's loads in the store (evaluate/load-arrivals.ts): per series the last
// sighting, written only when it changes, and the loads seen, bounded per series: the
// RECENT_LOADS newest, and of the older ones the LONG_GAPS_KEPT that ended the longest gaps,
// so a table loaded every 5 minutes still knows its nights and weekends with ~220 rows.
import { LONG_GAPS_KEPT, RECENT_LOADS, type LoadChange, type LoadHistory } from "../evaluate/load-arrivals.js";
import type { Sql } from "./sql-session.js";
import { toColumnArrays, unnestFrom } from "./unnest.js";

const STATE_COLUMNS = {
  series: "text",
  first_seen: "timestamptz",
  newest: "int8",
  rows: "int8",
  parts: "text",
  loads: "int4",
  last_load: "timestamptz",
};
const ARRIVAL_COLUMNS = { series: "text", arrived_at: "timestamptz", gap_seconds: "int4", slack_seconds: "int4" };

const date = (seconds: number | null) => (seconds === null ? null : new Date(seconds * 1000).toISOString());
const seconds = (value: Date | null) => (value === null ? null : Math.round(value.getTime() / 1000));
const int = (value: string | number | bigint | null) => (value === null ? null : Number(value));

/** The scan's changes, in completeScan's transaction. */
export async function writeLoads(sql: Sql, loads: ReadonlyMap<string, LoadChange> | undefined, at: Date): Promise<void> {
  if (!loads || loads.size === 0) return;
  const changes = [...loads.values()];
  const states = changes.map(({ state: s }) => [s.series, date(s.first_seen), s.newest, s.rows, s.parts, s.loads, date(s.last_load)]);
  const n = Object.keys(STATE_COLUMNS).length;
  await sql(
    `INSERT INTO "table_load_states" ("series", "first_seen", "newest", "rows", "parts", "loads", "last_load", "updated_at")
     SELECT t.*, $${n + 1} FROM ${unnestFrom(STATE_COLUMNS)}
     ON CONFLICT ("series") DO UPDATE SET "newest" = EXCLUDED."newest", "rows" = EXCLUDED."rows", "parts" = EXCLUDED."parts",
       "loads" = EXCLUDED."loads", "last_load" = EXCLUDED."last_load", "updated_at" = EXCLUDED."updated_at"`,
    [...toColumnArrays(states, n), at],
  );
  const arrivals = changes
    .filter((c) => c.arrival !== null)
    .map((c) => [c.state.series, date(c.arrival!.at), c.arrival!.gap, c.arrival!.slack]);
  if (arrivals.length === 0) return;
  await sql(
    `INSERT INTO "table_arrivals" ("series", "arrived_at", "gap_seconds", "slack_seconds") SELECT * FROM ${unnestFrom(ARRIVAL_COLUMNS)}
     ON CONFLICT DO NOTHING`,
    toColumnArrays(arrivals, 4),
  );
  // Bounded: past the newest RECENT_LOADS, only the loads after the LONG_GAPS_KEPT longest gaps stay.
  await sql(
    `DELETE FROM "table_arrivals" a USING (
       SELECT "series", "arrived_at", row_number() OVER (PARTITION BY "series" ORDER BY "gap_seconds" DESC NULLS LAST, "arrived_at" DESC) AS longest
         FROM (SELECT "series", "arrived_at", "gap_seconds",
                      row_number() OVER (PARTITION BY "series" ORDER BY "arrived_at" DESC) AS recent
                 FROM "table_arrivals" WHERE "series" = ANY($1::text[])) r
        WHERE r.recent > $2) o
      WHERE a."series" = o."series" AND a."arrived_at" = o."arrived_at" AND o.longest > $3`,
    [[...new Set(arrivals.map((a) => a[0]))], RECENT_LOADS, LONG_GAPS_KEPT],
  );
}

interface StateRow {
  series: string;
  first_seen: Date;
  newest: string | number | null;
  rows: string | number | null;
  parts: string | null;
  loads: number;
  last_load: Date | null;
}

/** Every series' loads, oldest first. */
export async function readLoads(sql: Sql): Promise<Map<string, LoadHistory>> {
  const states = (await sql<StateRow>(`SELECT * FROM "table_load_states"`)).rows;
  const arrivals = (
    await sql<{ series: string; arrived_at: Date; gap_seconds: number | null; slack_seconds: number }>(
      `SELECT "series", "arrived_at", "gap_seconds", "slack_seconds" FROM "table_arrivals" ORDER BY "series", "arrived_at"`,
    )
  ).rows;
  const out = new Map<string, LoadHistory>();
  for (const row of states) {
    out.set(row.series, {
      state: {
        series: row.series,
        first_seen: seconds(row.first_seen)!,
        newest: int(row.newest),
        rows: int(row.rows),
        parts: row.parts,
        loads: row.loads,
        last_load: seconds(row.last_load),
      },
      arrivals: [],
    });
  }
  for (const row of arrivals)
    out.get(row.series)?.arrivals.push({ at: seconds(row.arrived_at)!, gap: row.gap_seconds, slack: row.slack_seconds });
  return out;
}
