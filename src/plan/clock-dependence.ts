// Whether a check's answer can change while the tables it reads do not. Such a check cannot
// simply keep its previous result on unchanged data:
// - "staleness" (freshness): the newest timestamp is kept and its age judged again with the
//   server's current clock, without reading the table;
// - "not_future" (timestamp_not_future): rows "after now()" can only become fewer as now()
//   grows, so a previous count of 0 stays 0; any other count is read again;
// - "always": the SQL itself reads the clock or other state outside the tables' parts
//   (now(), today(), rand(), dictionaries...), or the probe is one this module does not know
//   (anomaly series): read every scan.
import type { InferredTest } from "../infer/types.js";

export type ClockDependence = "none" | "staleness" | "not_future" | "always";

/**
 * Functions whose value changes between two scans of the same parts: the clock, random numbers,
 * and external state (dictionaries, Join tables). Matched case-insensitively, as ClickHouse
 * accepts several of them in any case. A false positive only costs a read.
 */
const VOLATILE =
  /\b(now|now64|nowInBlock|today|yesterday|uptime|rand\w*|random\w*|canonicalRand|fuzzBits|generateUUID\w*|generateULID|generateSnowflakeID|UTCTimestamp|sysdate|curdate|dict\w*|joinGet\w*)\s*\(|\b(current_timestamp|current_date|current_time|localtimestamp|localtime)\b/i;

/** Rules whose series are bucketed by the clock (built on another branch): never kept. */
const ANOMALY_RULES = new Set(["volume_anomaly", "metric_value_anomaly", "freshness_anomaly"]);

/** The text of the volatile function call in `sql`, or null. */
export function volatileCall(sql: string): string | null {
  return VOLATILE.exec(sql)?.[0] ?? null;
}

/** The SQL of the check that comes from the definition (filter, expressions), not from us. */
function definitionSql(test: InferredTest): string[] {
  const texts = test.filter === null ? [] : [test.filter];
  const probe = test.probe;
  // timestamp_not_future's own `now()` is the one this module knows to be monotone.
  if (probe.type === "rows_where" && test.rule !== "timestamp_not_future") texts.push(probe.violation);
  if (probe.type === "duplicate_keys") texts.push(probe.key);
  return texts;
}

export function clockDependence(test: InferredTest): ClockDependence {
  if (ANOMALY_RULES.has(test.rule)) return "always";
  const type = (test.probe as { type: string }).type;
  if (!["rows_where", "duplicate_keys", "not_empty", "staleness", "schema"].includes(type)) return "always";
  if (definitionSql(test).some((sql) => volatileCall(sql) !== null)) return "always";
  if (test.probe.type === "staleness") return "staleness";
  if (test.rule === "timestamp_not_future") return "not_future";
  return "none";
}

/**
 * True when the check's verdict may change with time alone, on unchanged tables. The hook for
 * rules added elsewhere (anomaly series): an unknown probe or an anomaly rule is clock-dependent,
 * so it is read every scan until it declares how it is judged again from kept values.
 */
export function isClockDependent(test: InferredTest): boolean {
  return clockDependence(test) !== "none";
}
