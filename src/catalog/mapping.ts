// The one test for "a YAML mapping" (a plain object, not a list or a scalar) and the one
// reading of a resource's `name` for labels, both by zod, for the code that still meets raw
// YAML before a schema does (file forms, labels of entries that fail their schema).
import { z } from "zod";

const mapping = z.record(z.string(), z.unknown());
const named = z.looseObject({ name: z.string() });

export const isMapping = (value: unknown): value is Record<string, unknown> => mapping.safeParse(value).success;

/** The entry's `name` when it is a mapping with a string name, else null. */
export function nameOf(value: unknown): string | null {
  const parsed = named.safeParse(value);
  return parsed.success ? parsed.data.name : null;
}
