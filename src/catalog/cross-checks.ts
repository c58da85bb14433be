// Checks that span several fields of one structured metric. They run after the shape
// is valid, so each can trust the types; each issue carries its own field path.
import type { z } from "zod";

interface Shape {
  table: string;
  timestamp?: string | undefined;
  freshness?: string | undefined;
  measures: { alias: string; function: string; column?: string | undefined; non_negative?: boolean | undefined }[];
  dimensions: { name: string; table?: string | undefined }[];
  joins: { table: string }[];
}

function issue<T>(ctx: z.core.$RefinementCtx<T>, path: (string | number)[], message: string): void {
  ctx.addIssue({ code: "custom", path, message });
}

const COUNTS = new Set(["Count", "CountDistinct"]);

export function crossCheckStructured<T extends Shape>(value: T, ctx: z.core.$RefinementCtx<T>): void {
  value.measures.forEach((measure, i) => {
    if (measure.column === undefined && measure.function !== "Count") issue(ctx, ["measures", i, "column"], `required for ${measure.function}`);
    // non_negative would be silently ignored on a count: the rule checks summed values.
    if (measure.non_negative !== undefined && COUNTS.has(measure.function)) issue(ctx, ["measures", i, "non_negative"], "only allowed for Sum|Avg|Min|Max");
    if (value.measures.findIndex((m) => m.alias === measure.alias) !== i) issue(ctx, ["measures", i, "alias"], `duplicate alias ${measure.alias}`);
  });

  const joined = value.joins.map((j) => j.table);
  value.joins.forEach((j, i) => {
    // Two joins of one table would make a dimension's `table:` ambiguous.
    if (joined.indexOf(j.table) !== i) issue(ctx, ["joins", i, "table"], `${j.table} is already joined`);
  });

  value.dimensions.forEach((dimension, i) => {
    if (value.dimensions.findIndex((d) => d.name === dimension.name) !== i) issue(ctx, ["dimensions", i, "name"], `duplicate dimension ${dimension.name}`);
    const source = dimension.table;
    if (source !== undefined && source !== value.table && !joined.includes(source)) {
      const allowed = [value.table, ...joined].join(", ");
      issue(ctx, ["dimensions", i, "table"], `${source} is neither the base table nor a joined table (expected one of ${allowed})`);
    }
  });

  // Without a timestamp column there is nothing to measure freshness on.
  if (value.freshness !== undefined && value.timestamp === undefined) issue(ctx, ["freshness"], "needs a timestamp column");
}
