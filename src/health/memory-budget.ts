// Whether the loaded catalogue leaves its scans room in the heap this process was given. Pure.
// Past that room V8 ends the process mid-scan ("JavaScript heap out of memory") with no word of
// why, every scan, on every restart: at 30,000 metrics under the image's settings (288 MB) the
// daemon started, answered /readyz and died in its first scan. Refusing to start instead says
// what to change, and a rolling update keeps the previous replicas serving.

export const MIB = 1_048_576;

/** Bytes as whole MiB, for the log and the message. */
export const toMb = (bytes: number): number => Math.round(bytes / MIB);

/**
 * A scan's peak live heap over what the catalogue keeps (the heap after its load less the heap
 * before it): the scan holds every check's observations and anomaly series as it goes, in
 * proportion to the catalogue. With the scale benchmark's catalogue under the image's settings
 * (docs/benchmarks.md, "A catalogue too big for the memory given") 20,000 metrics (104 MB) scanned
 * and 25,000 (128 MB) ran out: between 2.1 and 2.6 times. A catalogue whose scans need more (long
 * hourly training windows, many segments) can still run out; this catches the ones that would.
 */
export const SCAN_PEAK_RATIO = 2.5;
/** Of the old space, what a scan's projected peak may take: near the limit V8 collects without end. */
export const HEAP_SHARE = 0.9;
/**
 * The share the advice aims at: room besides the scan for the read model it leaves and the reads
 * (at 20,000 metrics with 320 MB the heap in use reached 306 MB after three scans).
 */
const ADVISED_SHARE = 0.75;

export interface HeapReading {
  /** live heap after a full collection, bytes */
  usedBytes: number;
  /** the old generation's limit (--max-old-space-size), bytes: where what the catalogue keeps lives */
  limitBytes: number;
}

export interface CatalogueSize {
  metrics: number;
  tests: number;
}

export type MemoryVerdict =
  | { fits: true; catalogueBytes: number; neededBytes: number }
  | { fits: false; catalogueBytes: number; neededBytes: number; message: string };

/** `before` and `after`: the live heap just before the catalogue's load and just after it. */
export function memoryBudget(before: HeapReading, after: HeapReading, catalogue: CatalogueSize): MemoryVerdict {
  const catalogueBytes = Math.max(0, after.usedBytes - before.usedBytes);
  const neededBytes = before.usedBytes + SCAN_PEAK_RATIO * catalogueBytes;
  if (neededBytes <= HEAP_SHARE * after.limitBytes) return { fits: true, catalogueBytes, neededBytes };
  // The old space to ask for, rounded up to 64 MiB; the pod's limit about twice that, as
  // docs/deployment.md advises (the rest is native memory: buffers, the ClickHouse client, Prisma).
  const oldSpace = Math.ceil(neededBytes / ADVISED_SHARE / MIB / 64) * 64;
  return {
    fits: false,
    catalogueBytes,
    neededBytes,
    message:
      `the catalogue (${catalogue.metrics.toLocaleString("en-US")} metrics, ${catalogue.tests.toLocaleString("en-US")} tests) ` +
      `keeps ${toMb(catalogueBytes)} MB of heap and a scan would need about ${toMb(neededBytes)} MB, ` +
      `more than ${Math.round(HEAP_SHARE * 100)} % of the ${toMb(after.limitBytes)} MB old space this process may use: it would run out of memory scanning. ` +
      `Give it more, e.g. NODE_OPTIONS="--max-old-space-size=${oldSpace}" with a memory limit of about ${oldSpace * 2} Mi ` +
      `(Helm: config.nodeOptions and resources.limits.memory), or split the catalogue between daemons; ` +
      `MEMORY_CHECK=false starts it anyway`,
  };
}
