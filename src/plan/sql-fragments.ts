// The SQL a metric's definition contributes verbatim (its filter, measure and dimension
// expressions), and the probe that asks ClickHouse whether it can parse them. Compiling stays
// pure and needs no warehouse; this check runs where the warehouse is reachable (at load and
// before each scan's plan), so an unparsable fragment makes its metric `unknown` with the
// reason, instead of every test of it being "not evaluated" while it reads as degraded.
import type { MetricIR } from "../compile/ir.js";
import { isExpression } from "../sql/value-expr.js";

export interface SqlFragment {
  metric: string;
  datasource: string;
  /** where it comes from, e.g. "filter", "measure net_revenue expr" */
  what: string;
  text: string;
}

/** ClickHouse's SYNTAX_ERROR, on 18.16 and on current releases alike. */
export const SYNTAX_ERROR_CODE = 62;

export function metricFragments(ir: MetricIR): SqlFragment[] {
  if (ir.kind !== "structured") return [];
  const out: SqlFragment[] = [];
  const add = (what: string, text: string | null) => {
    if (text !== null) out.push({ metric: ir.name, datasource: ir.datasource, what, text });
  };
  add("filter", ir.filter);
  // A timestamp or key defined by an expression (MetricFlow `expr`), never a plain column.
  if (ir.timestamp !== null && isExpression(ir.timestamp)) add("timestamp expr", ir.timestamp);
  if (ir.primary_key !== null && isExpression(ir.primary_key)) add("primary key expr", ir.primary_key);
  for (const m of ir.measures) add(`measure ${m.alias} expr`, m.expr);
  for (const d of ir.dimensions) add(`dimension ${d.name} expr`, d.expr);
  return out;
}

/**
 * One SELECT that ClickHouse must parse with every fragment in it and that reads nothing
 * (WHERE 0, over system.one). Parsing precedes analysis, so a syntax error (code 62) is
 * reported before any unknown column (code 47, which means: it parsed).
 */
export function parseProbe(texts: readonly string[]): string {
  return `SELECT 1 FROM system.one WHERE 0${texts.map((t) => ` AND ((${t}) IS NULL)`).join("")}`;
}

/** Greedy chunks whose probe stays under `budget` bytes. */
export function probeChunks(texts: readonly string[], budget: number): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  let size = parseProbe([]).length;
  for (const text of texts) {
    const extra = Buffer.byteLength(` AND ((${text}) IS NULL)`);
    if (current.length > 0 && size + extra > budget) {
      chunks.push(current);
      current = [];
      size = parseProbe([]).length;
    }
    current.push(text);
    size += extra;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
