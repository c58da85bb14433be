// The anomaly series a replica holds in memory, per (datasource, table, timestamp column): the
// latest scan's readings (cadence plus each grain's series), so an incremental scan can judge an
// unchanged table again from them instead of re-reading it (rejudgeGroup). Reads never use them:
// they draw the verdicts the scan kept (verdict-holder.ts). Bounded by the number of values
// held: past the bound, the least recently used groups go, and the next scan reads them again.
import { seriesCheckKeys, seriesValueCount, shiftSeries } from "../evaluate/series-values.js";
import { usualGapSeconds } from "../plan/cadence-query.js";
import { grainSlot, seriesSpan, type SeriesGroup } from "../plan/series-query.js";
import type { GroupReading } from "../evaluate/series-values.js";

/**
 * About 8 bytes each: 5 million values is some 40 MB. bench:scale's 10,000 metrics hold 3.7 million
 * with the totals' series read over their window, about 4.5 million with the warm-up before it
 * (plan/series-query.ts historyBuckets); at 4 million, 9 of its 100 tables were read again on
 * every unchanged scan.
 */
export const DEFAULT_MAX_VALUES = 5_000_000;

export interface SeriesCache {
  /** A scan's readings replace whatever older scans left. */
  storeScan(scanId: string, readings: ReadonlyMap<string, GroupReading>): void;
  /** One group read on demand, as of `scanId`. */
  put(scanId: string, reading: GroupReading): void;
  /** The group's reading as of `scanId`, if held. */
  get(scanId: string, groupId: string): GroupReading | undefined;
  /** The newest reading of a group whatever scan made it (incremental reuse). */
  latest(groupId: string): { scanId: string; reading: GroupReading } | undefined;
  /** What is held: groups and values. */
  size(): { groups: number; values: number };
}

function valuesOf(reading: GroupReading): number {
  let n = 0;
  for (const grain of reading.grains) n += grain.series === null ? 0 : seriesValueCount(grain.series);
  return n;
}

export function createSeriesCache(maxValues = DEFAULT_MAX_VALUES): SeriesCache {
  // Map order is recency order: a hit moves the entry to the end; eviction takes from the front.
  const entries = new Map<string, { scanId: string; reading: GroupReading; values: number }>();
  let held = 0;

  const remove = (groupId: string) => {
    const entry = entries.get(groupId);
    if (!entry) return;
    held -= entry.values;
    entries.delete(groupId);
  };
  const add = (scanId: string, reading: GroupReading) => {
    remove(reading.group.id);
    const values = valuesOf(reading);
    // One group larger than the whole bound is not kept (it is read again when asked for).
    if (values > maxValues) return;
    entries.set(reading.group.id, { scanId, reading, values });
    held += values;
    for (const [id] of entries) {
      if (held <= maxValues) break;
      remove(id);
    }
  };

  return {
    storeScan(scanId, readings) {
      entries.clear();
      held = 0;
      for (const reading of readings.values()) add(scanId, reading);
    },
    put: add,
    get(scanId, groupId) {
      const entry = entries.get(groupId);
      if (!entry || entry.scanId !== scanId) return undefined;
      entries.delete(groupId);
      entries.set(groupId, entry);
      return entry.reading;
    },
    latest(groupId) {
      const entry = entries.get(groupId);
      return entry ? { scanId: entry.scanId, reading: entry.reading } : undefined;
    },
    size: () => ({ groups: entries.size, values: held }),
  };
}

/**
 * The incremental scan's hook: a group whose table has not changed since `reading` was taken,
 * judged again at `now` (unix seconds) without reading the table. Its newest row and gaps are
 * the same; each grain's span follows the clock, buckets that completed since then hold no
 * rows. Null when the group's plan changed (another grain, a longer span, other checks): read it.
 */
export function rejudgeGroup(reading: GroupReading, group: SeriesGroup, now: number): GroupReading | null {
  const cadence = reading.cadence;
  if (reading.error !== null || cadence === null || reading.group.kind !== group.kind) return null;
  const clock = { ...cadence, now };
  const usualGap = usualGapSeconds(cadence.gaps);
  const grains = [];
  // Judgements of the held reading stay valid while every span is the same (same buckets, same values).
  let sameSpans = true;
  for (const plan of group.grains) {
    const slot = grainSlot(plan);
    const before = reading.grains.find((g) => grainSlot(g) === slot);
    const planned = reading.group.grains.find((g) => grainSlot(g) === slot);
    if (!before || !planned || planned.buckets !== plan.buckets) return null;
    // The same checks (a window without rows holds none: still none on unchanged data).
    const keys = new Set(plan.tests.map((t) => t.key));
    const held = new Set([...(before.series === null ? [] : seriesCheckKeys(before.series)), ...before.failed.keys()]);
    if (before.series !== null && (keys.size !== held.size || [...keys].some((key) => !held.has(key)))) return null;
    const span = seriesSpan(clock, group.kind, plan.grain, plan.buckets, usualGap);
    const series =
      before.series === null || span === null || (span.start === before.series.span.start && span.end === before.series.span.end)
        ? before.series
        : shiftSeries(before.series, span);
    sameSpans &&= series === before.series;
    grains.push({ grain: plan.grain, segment: plan.segment, series, failed: before.failed });
  }
  return { group, cadence: clock, error: null, grains, ...(sameSpans && reading.held ? { held: reading.held } : {}) };
}
