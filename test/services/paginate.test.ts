import { describe, expect, it } from "vitest";
import { encodeCursor, paginate } from "../../src/services/paginate.js";
import { serializeInSlices } from "../../src/services/serialized.js";

const items = Array.from({ length: 10 }, (_, i) => i);
const even = (n: number) => n % 2 === 0;

describe("paginate", () => {
  it("returns every match without a limit, and pages through them with cursors", () => {
    expect(paginate(items, even, {}, "v1")).toEqual({ items: [0, 2, 4, 6, 8], matched: 5, next_cursor: null });
    const first = paginate(items, even, { limit: 2 }, "v1");
    expect(first).toMatchObject({ items: [0, 2], matched: 5 });
    const second = paginate(items, even, { limit: 2, cursor: first.next_cursor! }, "v1");
    expect(second).toMatchObject({ items: [4, 6], matched: 5 });
    const last = paginate(items, even, { limit: 2, cursor: second.next_cursor! }, "v1");
    expect(last).toEqual({ items: [8], matched: 5, next_cursor: null });
  });

  it("refuses a cursor of another catalogue version or one it never issued", () => {
    const cursor = paginate(items, even, { limit: 1 }, "version-a-0123456789").next_cursor!;
    expect(() => paginate(items, even, { cursor }, "version-b-0123456789")).toThrow(/catalogue was reloaded/);
    expect(() => paginate(items, even, { cursor: "bm9wZQ" }, "v1")).toThrow(/not a cursor this API returned/);
    expect(() => paginate(items, even, { cursor: encodeCursor("v1", -3) }, "v1")).toThrow(/not a cursor/);
  });
});

describe("serializeInSlices", () => {
  it("produces exactly JSON.stringify's bytes, whatever the number of slices", async () => {
    for (const n of [0, 1, 1999, 2000, 4501]) {
      const value = { tests: Array.from({ length: n }, (_, i) => ({ i, s: `x"${i}` })), count: n };
      expect((await serializeInSlices(value, "tests")).toString("utf8")).toBe(JSON.stringify(value));
    }
    const summaryFirst = { summary: { total: 3 }, metrics: [{ a: 1 }, { a: 2 }] };
    expect((await serializeInSlices(summaryFirst, "metrics")).toString("utf8")).toBe(JSON.stringify(summaryFirst));
  });
});
