// Shares equal strings among values a reader produces. Parsers and database drivers make a string
// of its own for each occurrence, and what the daemon reads it keeps for the process's life: at
// 10,000 metrics the read model held "measured" 51,001 times, one scan id 10,201 times and each
// column name once per metric that names it (18.7 MB of copies in a heap snapshot,
// docs/benchmarks.md). A reader makes one intern for its read; the table is garbage afterwards.
export type Intern = (value: string) => string;

export function createIntern(): Intern {
  const seen = new Map<string, string>();
  return (value) => {
    const known = seen.get(value);
    if (known !== undefined) return known;
    seen.set(value, value);
    return value;
  };
}

/** Every string in a parsed value (arrays and plain objects, walked once each), in place. */
export function internStrings(value: unknown, intern: Intern): void {
  const visited = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item === null || typeof item !== "object" || visited.has(item)) continue;
    visited.add(item);
    if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) {
        const element: unknown = item[i];
        if (typeof element === "string") item[i] = intern(element);
        else stack.push(element);
      }
    } else {
      const record = item as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const field = record[key];
        if (typeof field === "string") record[key] = intern(field);
        else stack.push(field);
      }
    }
  }
}
