// Queries a user can paste into clickhouse-client to see up to 10 example violations.
// Classic syntax only, so they run on ClickHouse 18.16 as well as current releases.
import { quoteString, quoteTable } from "../sql/identifiers.js";
import { timeSql } from "../sql/value-expr.js";
import { CLOCK_SKEW_SECONDS } from "./clock-skew.js";
import type { Probe } from "./types.js";

function where(conditions: (string | null)[]): string {
  const parts = conditions.filter((c): c is string => c !== null).map((c) => `(${c})`);
  return parts.length === 0 ? "" : ` WHERE ${parts.join(" AND ")}`;
}

export function sampleSql(table: string, filter: string | null, probe: Probe): string {
  const from = quoteTable(table);
  switch (probe.type) {
    case "rows_where":
      return `SELECT * FROM ${from}${where([filter, probe.violation])} LIMIT 10`;
    case "not_empty":
      return `SELECT count() AS rows FROM ${from}${where([filter])}`;
    case "duplicate_keys": {
      const key = probe.key;
      const rows = filter === null ? "" : ` AND (${filter})`;
      const inner = `SELECT ${key} FROM ${from}${where([filter])} GROUP BY ${key} HAVING count() > 1`;
      return `SELECT * FROM ${from} WHERE ${key} IN (${inner})${rows} ORDER BY ${key} LIMIT 10`;
    }
    case "staleness":
      return `SELECT max(${probe.column}) AS newest, now() AS checked_at FROM ${from}${where([filter])}`;
    case "volume_series":
    case "value_series": {
      // The newest rows; a scan that flags a bucket replaces this with that bucket's rows.
      const ts = timeSql(probe.timestamp);
      return `SELECT * FROM ${from}${where([filter])} ORDER BY ${ts} DESC LIMIT 10`;
    }
    case "load_cadence": {
      const ts = timeSql(probe.timestamp);
      return `SELECT max(${ts}) AS newest, now() AS checked_at FROM ${from} WHERE ${ts} <= now() + ${CLOCK_SKEW_SECONDS}`;
    }
    case "schema": {
      const [database, name] = table.split(".") as [string, string];
      return `SELECT name, type FROM system.columns WHERE database = ${quoteString(database)} AND table = ${quoteString(name)} ORDER BY name`;
    }
  }
}
