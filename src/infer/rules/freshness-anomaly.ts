// Prevents: a stalled pipeline going unnoticed on a table whose metrics declare no `freshness`.
// The gap since the newest row is judged against the table's own cadence (the gaps between
// its rows over the training window): a table loaded daily is not stale at 23 h, one loaded
// every 5 minutes is stale at 1 h. Like `freshness`, a property of the table: unfiltered.
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
  // The cadence depends on the history's span and the sensitivity only: not on grain or detection.
  const windowSeconds = settings.training_buckets * GRAIN_SECONDS[settings.grain];
  return [
    makeTest(ir, {
      rule: "freshness_anomaly",
      name: `newest ${timestamp} is within the table's usual loading gap`,
      check: `now() - max(${timestamp}) within the gaps between its rows over ${formatSeconds(windowSeconds)}, sensitivity ${sensitivity}`,
      severity: anomalySeverity(ir),
      confidence: "medium",
      table,
      filter: null,
      columns: columnRefs(table, timestamp),
      probe: { type: "load_cadence", timestamp, window_seconds: windowSeconds, sensitivity },
    }),
  ];
}
