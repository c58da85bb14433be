// The catalogue's tests are held for the daemon's life: 134,000 of them at 10,000 metrics. Their
// keys, names and SQL are built from template literals, which V8 keeps as trees of the pieces
// (cons strings, 32 bytes a node): about 55 MB of such trees at that size, against about 15 MB
// flat, and hundreds of thousands of objects more for every major GC to mark. Copying each
// distinct string once into a flat one, and sharing it, gives both back.

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
 * A copy of plain data (objects, arrays, strings, numbers) with every string from `pool`. An
 * object or array met twice is copied once, so what was shared stays shared, and a copy met again
 * is itself; other objects (a Date, a Map) are kept as they are.
 */
export function withPooledStrings<T>(value: T, pool: StringPool, copies: WeakMap<object, unknown> = new WeakMap()): T {
  if (typeof value === "string") return pool(value) as T;
  if (typeof value !== "object" || value === null) return value;
  const done = copies.get(value);
  if (done !== undefined) return done as T;
  let copy: unknown;
  if (Array.isArray(value)) copy = value.map((item: unknown) => withPooledStrings(item, pool, copies));
  else if (Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = withPooledStrings(item, pool, copies);
    copy = out;
  } else copy = value;
  copies.set(value, copy);
  // a copy met again (a later test sharing this one's check) is already pooled
  if (copy !== value) copies.set(copy as object, copy);
  return copy as T;
}
