import { describe, expect, it } from "vitest";
import { oldSpaceLimit } from "../../src/health/heap-reading.js";
import { HEAP_SHARE, memoryBudget, SCAN_PEAK_RATIO } from "../../src/health/memory-budget.js";

const MB = 1_048_576;
const heap = (usedMb: number, limitMb = 288) => ({ usedBytes: usedMb * MB, limitBytes: limitMb * MB });
const size = { metrics: 20_000, tests: 268_800 };

describe("memoryBudget", () => {
  it("lets a catalogue start when a scan's projected peak stays within the share of the limit", () => {
    // bench:scale's 10,000 metrics under the image's settings: 21 MB before the load, 74 after.
    const verdict = memoryBudget(heap(21), heap(74), { metrics: 10_000, tests: 134_400 });
    expect(verdict.fits).toBe(true);
    expect(verdict.catalogueBytes).toBe(53 * MB);
    expect(verdict.neededBytes).toBeCloseTo((21 + SCAN_PEAK_RATIO * 53) * MB, 0);
  });

  it("refuses one that would not fit, naming the figures and the settings that would", () => {
    const verdict = memoryBudget(heap(21), heap(125), size);
    expect(verdict.fits).toBe(false);
    if (verdict.fits) return;
    expect(verdict.neededBytes).toBeGreaterThan(HEAP_SHARE * 288 * MB);
    expect(verdict.message).toBe(
      "the catalogue (20,000 metrics, 268,800 tests) keeps 104 MB of heap and a scan would need about 281 MB, " +
        "more than 90 % of the 288 MB old space this process may use: it would run out of memory scanning. " +
        'Give it more, e.g. NODE_OPTIONS="--max-old-space-size=384" with a memory limit of about 768 Mi ' +
        "(Helm: config.nodeOptions and resources.limits.memory), or split the catalogue between daemons; MEMORY_CHECK=false starts it anyway",
    );
  });

  it("advises an old space that the check itself then accepts, at any size", () => {
    for (const catalogueMb of [60, 104, 128, 154, 400, 2_000]) {
      const verdict = memoryBudget(heap(21), heap(21 + catalogueMb), size);
      if (verdict.fits) continue;
      const advised = Number(/--max-old-space-size=(\d+)/.exec(verdict.message)![1]);
      expect(advised % 64).toBe(0);
      expect(memoryBudget(heap(21, advised), heap(21 + catalogueMb, advised), size).fits).toBe(true);
    }
  });

  it("counts no catalogue when a collection left the heap smaller than before the load", () => {
    const verdict = memoryBudget(heap(30), heap(28), size);
    expect(verdict).toEqual({ fits: true, catalogueBytes: 0, neededBytes: 30 * MB });
  });
});

describe("oldSpaceLimit", () => {
  it("takes the young generation's three semi-spaces off V8's limit, from the flags Node applied last", () => {
    // The image's settings: heap_size_limit 300 MB = 288 + 3 x 4.
    expect(oldSpaceLimit(300 * MB, "--max-old-space-size=288 --max-semi-space-size=4") / MB).toBe(288);
    // No semi-space flag: V8's default 16 MB (64 + 48 = 112 MB measured with --max-old-space-size=64).
    expect(oldSpaceLimit(112 * MB, "--max-old-space-size=64") / MB).toBe(64);
    // NODE_OPTIONS first, then the command line: the last one counts; underscores are V8's spelling too.
    expect(oldSpaceLimit(300 * MB, "--max-semi-space-size=8 --max_semi_space_size=4") / MB).toBe(288);
    // A limit the flags cannot explain is kept whole rather than made negative.
    expect(oldSpaceLimit(40 * MB, "--max-semi-space-size=64") / MB).toBe(40);
  });
});
