// The catalogue's tests are held for the daemon's life: 134,000 of them at 10,000 metrics. Their
// keys, names and SQL are built from template literals, which V8 keeps as trees of the pieces
// (cons strings, 32 bytes a node): 765,000 tree nodes (23 MB) at that size besides the text, and
// as many objects more for every major GC to mark. Copying each distinct string once into a flat
// one, and sharing it, gave back 30 MB of a 141 MB idle heap (docs/benchmarks.md).

export type StringPool = (s: string) => string;

/** Equal strings come back as one flat string. */
export function createStringPool(): StringPool {
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
 * A copy of plain data (objects, arrays, strings, numbers) with every string from `pool`; other
 * objects (a Date, a Map) are kept as they are.
 */
export function withPooledStrings<T>(value: T, pool: StringPool): T {
  if (typeof value === "string") return pool(value) as T;
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => withPooledStrings(item, pool)) as T;
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const copy: Record<string, unknown> = {};
  for (const key in value) copy[key] = withPooledStrings((value as Record<string, unknown>)[key], pool);
  return copy as T;
}
