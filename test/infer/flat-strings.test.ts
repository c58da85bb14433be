import { describe, expect, it } from "vitest";
import { createStringPool, withPooledStrings } from "../../src/infer/flat-strings.js";

describe("createStringPool", () => {
  it("answers equal strings with one string of the same text", () => {
    const pool = createStringPool();
    const built = (n: number) => `default|db.t${n}|` + "amount IS NOT NULL";
    const a = pool(built(1));
    expect(a).toBe("default|db.t1|amount IS NOT NULL");
    expect(pool(built(1))).toBe(a);
    expect(pool(built(2))).toBe("default|db.t2|amount IS NOT NULL");
  });

  it("keeps a string a UTF-8 round trip would change (a lone surrogate) as it is", () => {
    const pool = createStringPool();
    const lone = `name ${"\ud800"}`;
    expect(pool(lone)).toBe(lone);
    expect(pool("Zürich ✓ 🙂")).toBe("Zürich ✓ 🙂");
  });
});

describe("withPooledStrings", () => {
  it("copies plain data with pooled strings and keeps other objects as they are", () => {
    const pool = createStringPool();
    const at = new Date(0);
    const value = {
      key: `k${1}`,
      columns: [{ table: "db.t", column: "amount" }],
      probe: { type: "schema" },
      at,
      tolerance: 0.01,
      filter: null,
    };
    const copy = withPooledStrings(value, pool);
    expect(copy).toEqual(value);
    expect(copy).not.toBe(value);
    expect(copy.columns).not.toBe(value.columns);
    expect(copy.at).toBe(at);
    expect(withPooledStrings(value, pool).columns[0]!.table).toBe(copy.columns[0]!.table);
  });
});
