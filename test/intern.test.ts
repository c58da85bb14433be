import { describe, expect, it } from "vitest";
import { createIntern, withInternedStrings } from "../src/intern.js";

// Whether two equal strings are one in memory is not observable from JavaScript; these tests hold
// the values. The memory it saves is measured with heap snapshots (docs/benchmarks.md).
describe("createIntern", () => {
  it("answers equal strings with one string of the same text", () => {
    const intern = createIntern();
    const built = (n: number) => `default|db.t${n}|` + "amount IS NOT NULL";
    const a = intern(built(1));
    expect(a).toBe("default|db.t1|amount IS NOT NULL");
    expect(intern(built(1))).toBe(a);
    expect(intern(built(2))).toBe("default|db.t2|amount IS NOT NULL");
    expect(intern("")).toBe("");
  });

  it("keeps a string a UTF-8 round trip would change (a lone surrogate) as it is", () => {
    const intern = createIntern();
    const lone = `name ${"\ud800"}`;
    expect(intern(lone)).toBe(lone);
    expect(intern("Zürich ✓ 🙂")).toBe("Zürich ✓ 🙂");
  });
});

describe("withInternedStrings", () => {
  it("copies plain data with interned strings and keeps other objects as they are", () => {
    const intern = createIntern();
    const at = new Date(0);
    const value = {
      key: `k${1}`,
      columns: [{ table: "db.t", column: "amount" }],
      probe: { type: "schema" },
      at,
      tolerance: 0.01,
      filter: null,
      nested: [[["deep"]], true],
    };
    const copy = withInternedStrings(value, intern);
    expect(copy).toEqual(value);
    expect(copy).not.toBe(value);
    expect(copy.columns).not.toBe(value.columns);
    expect(copy.at).toBe(at);
    expect(withInternedStrings(value, intern).columns[0]!.table).toBe(copy.columns[0]!.table);
  });

  it("takes values that hold no strings", () => {
    const intern = createIntern();
    for (const value of [null, undefined, 3, [], {}]) expect(withInternedStrings(value, intern)).toEqual(value);
  });
});
