// Work that pauses itself (a generator yielding between units of work, so the scan can hand the
// event loop back: event-loop/chunked.ts runSteps), run to its end in one go by a caller that
// needs no pause.
export function runToEnd<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
