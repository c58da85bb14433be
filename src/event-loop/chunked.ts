// Work over a whole catalogue (tens of thousands of tests) in slices, handing the event loop back
// between them: health probes, keep-alive sockets and requests keep being served during a scan.
import { setImmediate as yieldToLoop } from "node:timers/promises";

/**
 * Items per slice: some 10 ms of the heaviest pure stage (identifying checks) on a 2-core host.
 * The event loop is handed back once a slice ends past the budget: slices of 2,000, handed back
 * after each, held it about 90 ms a slice there, and a mark-compact landing in one stalls
 * requests for both.
 */
export const SLICE = 250;

export async function forEachSlice<T>(
  items: readonly T[],
  run: (slice: readonly T[], start: number) => void,
  size = SLICE,
  budgetMs = 20,
): Promise<void> {
  await runSteps(sliceSteps(items, run, size), budgetMs);
}

/** One step a slice, pausing before each but the first (no pause after the last). */
function* sliceSteps<T>(items: readonly T[], run: (slice: readonly T[], start: number) => void, size: number): Generator<void> {
  for (let start = 0; start < items.length; start += size) {
    if (start > 0) yield;
    run(items.slice(start, start + size), start);
  }
}

/** map() in slices. */
export async function mapSlices<T, U>(items: readonly T[], map: (slice: readonly T[]) => U[], size = SLICE): Promise<U[]> {
  const out: U[] = [];
  await forEachSlice(
    items,
    (slice) => {
      for (const value of map(slice)) out.push(value);
    },
    size,
  );
  return out;
}

/** Work that pauses itself (a generator) run to its end, the event loop handed back every `budgetMs`. */
export async function runSteps(steps: Iterator<unknown>, budgetMs = 20): Promise<void> {
  let since = performance.now();
  while (!steps.next().done) {
    if (performance.now() - since < budgetMs) continue;
    await yieldToLoop();
    since = performance.now();
  }
}
