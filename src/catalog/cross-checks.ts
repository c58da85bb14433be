// Checks that span several fields of one structured metric. They run after the shape
// is valid, so each can trust the types; each issue carries its own field path.
import type { z } from "zod";

interface Shape {
  table: string;
  timestamp?: string | undefined;
  freshness?: string | undefined;
  anomalies?: { enabled?: boolean | undefined; segments?: string[] | undefined } | undefined;
  measures: {
    alias: string;
    function: string;
    column?: string | undefined;
    expr?: string | undefined;
    percentile?: number | undefined;
    non_negative?: boolean | undefined;
  }[];
  dimensions: { name: string; table?: string | undefined; column?: string | undefined; expr?: string | undefined }[];
  joins: { table: string; from?: string | undefined }[];
}

function issue<T>(ctx: z.core.$RefinementCtx<T>, path: (string | number)[], message: string): void {
  ctx.addIssue({ code: "custom", path, message });
}

const COUNTS = new Set(["Count", "CountDistinct"]);

export function crossCheckStructured<T extends Shape>(value: T, ctx: z.core.$RefinementCtx<T>): void {
  value.measures.forEach((measure, i) => {
    if (measure.column !== undefined && measure.expr !== undefined)
      issue(ctx, ["measures", i, "expr"], "give either column or expr, not both");
    else if (measure.column === undefined && measure.expr === undefined && measure.function !== "Count")
      issue(ctx, ["measures", i, "column"], `required for ${measure.function} (or expr)`);
    if ((measure.percentile === undefined) !== (measure.function !== "Percentile"))
      issue(
        ctx,
        ["measures", i, "percentile"],
        measure.function === "Percentile" ? "required for Percentile" : "only allowed for Percentile",
      );
    // non_negative would be silently ignored on a count: the rule checks summed values.
    if (measure.non_negative !== undefined && COUNTS.has(measure.function))
      issue(ctx, ["measures", i, "non_negative"], "only allowed for Sum|Avg|Min|Max");
    if (value.measures.findIndex((m) => m.alias === measure.alias) !== i)
      issue(ctx, ["measures", i, "alias"], `duplicate alias ${measure.alias}`);
  });

  const joined = value.joins.map((j) => j.table);
  value.joins.forEach((j, i) => {
    // Two joins of one table would make a dimension's `table:` ambiguous.
    if (joined.indexOf(j.table) !== i) issue(ctx, ["joins", i, "table"], `${j.table} is already joined`);
    // A hop starts from the base table or from a table joined before it.
    if (j.from !== undefined && j.from !== value.table && !joined.slice(0, i).includes(j.from)) {
      issue(ctx, ["joins", i, "from"], `${j.from} is neither the base table nor joined before this join`);
    }
    if (j.table === value.table) issue(ctx, ["joins", i, "table"], "cannot join the base table to itself");
  });

  value.dimensions.forEach((dimension, i) => {
    if (value.dimensions.findIndex((d) => d.name === dimension.name) !== i)
      issue(ctx, ["dimensions", i, "name"], `duplicate dimension ${dimension.name}`);
    if ((dimension.column === undefined) === (dimension.expr === undefined))
      issue(ctx, ["dimensions", i, "column"], "give exactly one of column or expr");
    const source = dimension.table;
    if (source !== undefined && source !== value.table && !joined.includes(source)) {
      const allowed = [value.table, ...joined].join(", ");
      issue(ctx, ["dimensions", i, "table"], `${source} is neither the base table nor a joined table (expected one of ${allowed})`);
    }
  });

  // Without a timestamp column there is nothing to measure freshness on.
  if (value.freshness !== undefined && value.timestamp === undefined) issue(ctx, ["freshness"], "needs a timestamp column");
  // Anomaly series are read by time: a block asking for them without a timestamp is a mistake.
  if (value.anomalies !== undefined && value.anomalies.enabled !== false && value.timestamp === undefined)
    issue(ctx, ["anomalies"], "needs a timestamp column (or enabled: false)");
  (value.anomalies?.segments ?? []).forEach((name, i) => {
    const problem = segmentProblem(name, value.table, value.dimensions);
    if (problem !== null) issue(ctx, ["anomalies", "segments", i], problem);
  });
}

/**
 * Why `name` cannot be a segment dimension of a metric on `table`, or null: it must be one of
 * the metric's dimensions, read from the base table (a column or an expression on it), since a
 * segment series is read from the base table alone.
 */
export function segmentProblem(
  name: string,
  table: string,
  dimensions: readonly { name: string; table?: string | undefined }[],
): string | null {
  const dimension = dimensions.find((d) => d.name === name);
  if (dimension === undefined) {
    const names = dimensions.map((d) => d.name);
    return `segment "${name}" is not a dimension of this metric (${names.length === 0 ? "it has none" : `its dimensions: ${names.join(", ")}`})`;
  }
  if (dimension.table !== undefined && dimension.table !== table)
    return `segment "${name}" is a dimension of the joined table ${dimension.table}: segments read the base table only (${table})`;
  return null;
}
