// Prevents: a value that jumps tenfold (a column that changed unit) or collapses while every row
// still passes its constraints. Each measure's value per time bucket, against its own history.
// A row count (Count without a column) is the volume series already: volume_anomaly covers it.
import type { MetricIR } from "../../compile/ir.js";
import { anomalySeverity, segmentsOf, segmentText, seriesSettings, settingsText } from "../anomaly-checks.js";
import { makeTest } from "../make-test.js";
import type { InferredTest } from "../types.js";
import { columnRefs, valueOf } from "../value-sql.js";

export function metricValueAnomaly(ir: MetricIR): InferredTest[] {
  const settings = seriesSettings(ir);
  const table = ir.table;
  const timestamp = ir.timestamp;
  if (settings === null || table === null || timestamp === null) return [];
  return ir.measures.flatMap((measure) => {
    const value = valueOf(measure);
    if (value === null) return [];
    const percentile = measure.function === "Percentile" && measure.percentile !== undefined ? `(${measure.percentile})` : "";
    const aggregate = `${measure.function}${percentile}(${value.label})`;
    // The total, then one check per segment dimension (the value per bucket of each of its values).
    return [null, ...segmentsOf(ir)].map((s) => ({
      ...makeTest(ir, {
        rule: "metric_value_anomaly",
        name: `${measure.alias} (${aggregate}) per ${settings.grain}${s === null ? "" : ` by ${s.segment.dimension}`} is within its expected range`,
        check: `${aggregate} by ${timestamp}${s === null ? "" : segmentText(s)} ${settingsText(settings)}`,
        severity: anomalySeverity(ir),
        confidence: "medium",
        table,
        filter: ir.filter,
        columns: [...columnRefs(table, timestamp), ...value.columns.map((column) => ({ table, column })), ...(s?.columns ?? [])],
        probe: {
          type: "value_series" as const,
          timestamp,
          settings,
          measure: {
            function: measure.function,
            sql: value.sql,
            ...(measure.percentile === undefined ? {} : { percentile: measure.percentile }),
          },
          ...(s === null ? {} : { segment: s.segment }),
        },
      }),
      measure: measure.alias,
    }));
  });
}
