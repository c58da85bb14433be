// Turns zod issues into the catalogue's error wording: a field path such as
// `measures[0].function` and a short reason, e.g. "expected one of Sum|Count|...".
import type { z } from "zod";

type Path = readonly PropertyKey[];

export function formatPath(path: Path): string {
  let text = "";
  for (const part of path) {
    if (typeof part === "number") text += `[${part}]`;
    else text += text === "" ? String(part) : `.${String(part)}`;
  }
  return text;
}

function valueAt(root: unknown, path: Path): unknown {
  let value = root;
  for (const part of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return value;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** One `path: reason` line per problem (an unknown-keys issue yields one per key). */
export function formatIssue(issue: z.core.$ZodIssue, root: unknown): string[] {
  const where = (path: Path) => (path.length === 0 ? "(metric)" : formatPath(path));
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((key) => `${where([...issue.path, key])}: unknown field`);
    case "invalid_type": {
      const value = valueAt(root, issue.path);
      if (value === undefined) return [`${where(issue.path)}: required`];
      return [`${where(issue.path)}: expected ${issue.expected}, got ${describe(value)}`];
    }
    default:
      return [`${where(issue.path)}: ${issue.message}`];
  }
}
