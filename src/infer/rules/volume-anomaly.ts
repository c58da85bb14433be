// Prevents: a load that brought half the usual rows (or twice them) reading as a real change in
// the metric. Rows per time bucket of the metric's rows (its filter), against their own history.
import type { MetricIR } from "../../compile/ir.js";
import { anomalySeverity, segmentsOf, segmentText, seriesSettings, settingsText } from "../anomaly-checks.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";
import { columnRefs } from "../value-sql.js";

export function volumeAnomaly(ir: MetricIR): InferredTest[] {
  const settings = seriesSettings(ir);
  const table = ir.table;
  const timestamp = ir.timestamp;
  if (settings === null || table === null || timestamp === null) return [];
  // The total, then one check per segment dimension (rows per bucket of each of its values).
  return [null, ...segmentsOf(ir)].map((s) => ({
    ...makeTest(ir, {
      rule: "volume_anomaly",
      name: `rows per ${settings.grain} (by ${timestamp})${s === null ? "" : ` by ${s.segment.dimension}`} are within their expected range`,
      check: `count() by ${timestamp}${s === null ? "" : segmentText(s)} ${settingsText(settings)}`,
      severity: anomalySeverity(ir),
      confidence: "medium",
      table,
      filter: ir.filter,
      columns: [...columnRefs(table, timestamp), ...(s?.columns ?? [])],
      probe: { type: "volume_series", timestamp, settings, ...(s === null ? {} : { segment: s.segment }) },
    }),
    measure: "rows",
  }));
}
