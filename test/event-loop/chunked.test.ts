import { describe, expect, it } from "vitest";
import { forEachSlice, runSteps } from "../../src/event-loop/chunked.js";

describe("runSteps", () => {
  it("runs every step, handing the event loop back once the budget is spent", async () => {
    const done: number[] = [];
    let turns = 0;
    const tick = setInterval(() => (turns += 1), 0);
    function* steps() {
      for (let i = 0; i < 5; i++) {
        const until = performance.now() + 4;
        while (performance.now() < until);
        done.push(i);
        yield;
      }
    }
    await runSteps(steps(), 3);
    clearInterval(tick);
    expect(done).toEqual([0, 1, 2, 3, 4]);
    expect(turns).toBeGreaterThan(0);
  });

  it("runs steps that stay within the budget without waiting", async () => {
    let n = 0;
    function* steps() {
      for (let i = 0; i < 1000; i++) {
        n += 1;
        yield;
      }
    }
    await runSteps(steps(), 1_000);
    expect(n).toBe(1000);
  });
});

describe("forEachSlice", () => {
  it("visits every item once, in order, in slices", async () => {
    const seen: number[] = [];
    await forEachSlice([1, 2, 3, 4, 5], (slice) => seen.push(...slice), 2);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  it("hands the event loop back once a slice ends past the budget, not after every slice", async () => {
    let turns = 0;
    const tick = setInterval(() => (turns += 1), 0);
    const slow = Array.from({ length: 6 }, (_, i) => i);
    await forEachSlice(
      slow,
      () => {
        const until = performance.now() + 4;
        while (performance.now() < until);
      },
      1,
      3,
    );
    expect(turns).toBeGreaterThan(0);
    turns = 0;
    const fast: number[] = [];
    await forEachSlice(
      Array.from({ length: 1000 }, (_, i) => i),
      (slice) => fast.push(...slice),
      10,
      1_000,
    );
    clearInterval(tick);
    expect(fast).toHaveLength(1000);
    expect(turns).toBe(0);
  });
});
