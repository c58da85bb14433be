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
  it("copies plain data with pooled strings, keeps sharing, and returns a copy met again as it is", () => {
    const pool = createStringPool();
    const copies = new WeakMap<object, unknown>();
    const columns = [{ table: "db.t", column: "amount" }];
    const at = new Date(0);
    const first = { key: "k", columns, probe: { type: "schema" }, at, tolerance: 0.01, filter: null };
    const second = { ...first, metric: "m2" };
    const a = withPooledStrings(first, pool, copies);
    const b = withPooledStrings(second, pool, copies);
    expect(a).toEqual(first);
    expect(a).not.toBe(first);
    expect(b.columns).toBe(a.columns);
    expect(b.probe).toBe(a.probe);
    expect(a.at).toBe(at);
    expect(withPooledStrings(a, pool, copies)).toBe(a);
  });
});
