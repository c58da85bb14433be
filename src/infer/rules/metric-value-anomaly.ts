// Prevents: a value that jumps tenfold (a column that changed unit) or collapses while every row
// still passes its constraints. Each measure's value per time bucket, against its own history.
// A row count (Count without a column) is the volume series already: volume_anomaly covers it.
import type { MetricIR } from "../../compile/ir.js";
import { anomalySeverity, seriesSettings, settingsText } from "../anomaly-checks.js";
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
    return [
      {
        ...makeTest(ir, {
          rule: "metric_value_anomaly",
          name: `${measure.alias} (${aggregate}) per ${settings.grain} is within its expected range`,
          check: `${aggregate} by ${timestamp} ${settingsText(settings)}`,
          severity: anomalySeverity(ir),
          confidence: "medium",
          table,
          filter: ir.filter,
          columns: [...columnRefs(table, timestamp), ...value.columns.map((column) => ({ table, column }))],
          probe: {
            type: "value_series",
            timestamp,
            settings,
            measure: {
              function: measure.function,
              sql: value.sql,
              ...(measure.percentile === undefined ? {} : { percentile: measure.percentile }),
            },
          },
        }),
        measure: measure.alias,
      },
    ];
  });
}
