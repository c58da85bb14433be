// Prevents: a stalled pipeline going unnoticed on a table whose metrics declare no `freshness`.
// The time since new rows last landed is judged against the gaps between the loads the daemon
// saw (evaluate/load-arrivals.ts; never the event times' gaps): a table loaded daily is not
// stale at 23 h, one loaded every 5 minutes is stale at 1 h. Like `freshness`, a property of
// the table: unfiltered.
import type { MetricIR } from "../../compile/ir.js";
import { GRAIN_SECONDS } from "../../catalog/types.js";
import { anomalySeverity, seriesSettings } from "../anomaly-checks.js";
import { makeTest } from "../make-test.js";
import { formatSeconds } from "./freshness.js";
import type { InferredTest } from "../types.js";
import { columnRefs } from "../value-sql.js";

export function freshnessAnomaly(ir: MetricIR): InferredTest[] {
  const settings = seriesSettings(ir);
  const table = ir.table;
  const timestamp = ir.timestamp;
  // A declared freshness says how stale is too stale; the learnt cadence would only second-guess it.
  const sensitivity = ir.anomalies?.freshness_sensitivity;
  if (settings === null || table === null || timestamp === null || ir.freshness_seconds !== null || sensitivity === undefined) return [];
  // The window bounds the recurring long gaps (nights, weekends); grain and detection play no part.
  const windowSeconds = settings.training_buckets * GRAIN_SECONDS[settings.grain];
  return [
    makeTest(ir, {
      rule: "freshness_anomaly",
      name: "new rows land within the table's usual loading gap",
      check: `time since the last load (newer ${timestamp} or more rows) within the gaps between loads over ${formatSeconds(windowSeconds)}, sensitivity ${sensitivity}`,
      severity: anomalySeverity(ir),
      confidence: "medium",
      table,
      filter: null,
      columns: columnRefs(table, timestamp),
      probe: { type: "load_cadence", timestamp, window_seconds: windowSeconds, sensitivity },
    }),
  ];
}
