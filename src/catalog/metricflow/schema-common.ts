// Pieces shared by the MetricFlow schemas, and the wording of their problems. Every problem
// reads `field.path: reason` (`measures[2].agg: expected one of sum|...`), as the reader's
// messages always have. Objects are loose: dbt and MetricFlow files carry many keys this
// reader does not use (label, meta, config...), and newer releases add more.
import { z } from "zod";
import { formatPath } from "../format-issue.js";

const EXPECTED: Record<string, string> = {
  string: "a string",
  number: "a number",
  boolean: "a boolean",
  object: "a mapping",
  record: "a mapping",
  array: "a list",
};

/** Wording for the issues a schema gives no message of its own. */
const mfErrorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === "invalid_type") {
    if (issue.input === undefined || issue.input === null) return "required";
    return `expected ${EXPECTED[issue.expected] ?? issue.expected}`;
  }
  if (issue.code === "invalid_value") return `expected one of ${issue.values.map(String).join("|")}`;
  return undefined;
};

/**
 * A mapping checked by `shape` and kept as written. zod lists a loose object's known keys
 * first; what is passed through to the definitions (an input's alias, offset_window...) keeps
 * the author's order.
 */
export function asWritten<T extends z.ZodType<Record<string, unknown>>>(shape: T, error: string) {
  return z.record(z.string(), z.unknown(), { error }).transform((raw, ctx): z.output<T> => {
    const typed = shape.safeParse(raw, { error: mfErrorMap });
    if (typed.success) return { ...raw, ...typed.data };
    for (const issue of typed.error.issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    return z.NEVER;
  });
}

/** Parses with the MetricFlow wording; problems as `path: reason` lines (or the reason alone at the root). */
export function parseMf<T extends z.ZodType>(
  schema: T,
  value: unknown,
): { ok: true; value: z.output<T> } | { ok: false; problems: string[] } {
  const result = schema.safeParse(value, { error: mfErrorMap });
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    problems: result.error.issues.map((issue) => (issue.path.length === 0 ? issue.message : `${formatPath(issue.path)}: ${issue.message}`)),
  };
}

/** `filter:` is a string or a list of strings (ANDed); kept as written, read with `templates`. */
export const filterField = z.union([z.string(), z.array(z.string())], { error: "expected a string or a list of strings" }).nullish();

export function templates(filter: z.output<typeof filterField>): string[] {
  if (filter === undefined || filter === null) return [];
  return typeof filter === "string" ? [filter] : filter;
}

/** MetricFlow's shorthand: `measure: x` for `measure: { name: x }` (and the same for metric inputs). */
export const nameShorthand = (value: unknown): unknown => (typeof value === "string" ? { name: value } : value);
