import { describe, expect, it } from "vitest";
import { createIntern, internStrings } from "../src/intern.js";

// Whether two equal strings are one in memory is not observable from JavaScript; these tests hold
// the values. The memory it saves is measured with a heap snapshot (docs/benchmarks.md).
describe("createIntern", () => {
  it("gives back each value unchanged: equal values alike, different ones apart", () => {
    const intern = createIntern();
    expect(intern(["meas", "ured"].join(""))).toBe("measured");
    expect(intern("measured")).toBe("measured");
    expect(intern("unreliable")).toBe("unreliable");
    expect(intern("")).toBe("");
  });
});

describe("internStrings", () => {
  it("leaves a parsed document deep-equal to what it was, whatever its leaves", () => {
    const document = {
      metrics: [
        { name: "orders", table: "shop.orders", time: "ts", dimensions: ["country", "ts"], sensitivity: 3, enabled: true, owner: null },
        { name: "refunds", table: "shop.refunds", time: "ts", dimensions: [], filter: { sql: "amount > 0" } },
      ],
      nested: [[["deep"]], 1.5],
    };
    const before = structuredClone(document);
    internStrings(document, createIntern());
    expect(document).toEqual(before);
  });

  it("walks a value shared between places once, and stops at cycles", () => {
    const shared = { column: "label" };
    const cyclic: Record<string, unknown> = { name: "loop", items: [shared, shared] };
    cyclic.self = cyclic;
    const seen: string[] = [];
    const intern = createIntern();
    internStrings(cyclic, (value) => {
      seen.push(value);
      return intern(value);
    });
    expect(seen.sort()).toEqual(["label", "loop"]);
    expect(cyclic.self).toBe(cyclic);
  });

  it("accepts values that hold no strings", () => {
    for (const value of [null, undefined, 3, "alone", [], {}]) expect(() => internStrings(value, createIntern())).not.toThrow();
  });
});
