// Shares equal strings among the values one reader produces, each as a flat copy. What the daemon
// reads or infers it keeps for the process's life, and every producer makes strings of its own:
// - the catalogue's tests, built from template literals, which V8 keeps as trees of the pieces
//   (cons strings, 32 bytes a node): 765,000 tree nodes (23 MB) at 10,000 metrics, as many objects
//   more for every major GC to mark; sharing flat copies gave back 30 MB of a 141 MB idle heap;
// - rows read back from PostgreSQL, a string per cell: "measured" 51,001 times, one scan id 10,201
//   times; and YAML scalars, a string per occurrence (often a slice of the whole file): each
//   column name once per metric naming it. 18.7 MB of copies in one heap snapshot.
// Figures in docs/benchmarks.md. A reader makes one intern for its read; it is garbage afterwards.

export type Intern = (value: string) => string;

/** Equal strings come back as one flat string. */
export function createIntern(): Intern {
  const pool = new Map<string, string>();
  return (s) => {
    const hit = pool.get(s);
    if (hit !== undefined) return hit;
    // A round trip through UTF-8 makes a new sequential string; a lone surrogate would not
    // survive it, so such a string is kept as it is.
    const copy = Buffer.from(s, "utf8").toString("utf8");
    const flat = copy === s ? copy : s;
    pool.set(flat, flat);
    return flat;
  };
}

/**
 * A copy of plain data (objects, arrays, strings, numbers) with every string from `intern`; other
 * objects (a Date, a Map) are kept as they are.
 */
export function withInternedStrings<T>(value: T, intern: Intern): T {
  if (typeof value === "string") return intern(value) as T;
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => withInternedStrings(item, intern)) as T;
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const copy: Record<string, unknown> = {};
  for (const key in value) copy[key] = withInternedStrings((value as Record<string, unknown>)[key], intern);
  return copy as T;
}
