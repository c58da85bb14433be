// What this replica remembers between its own scans, so the next scan reads from the store only
// what another replica (or a previous process) changed since: the last pass of every check (for
// incremental scans) and freshness_anomaly's loads. Each is tagged with the newest succeeded scan
// it matches; when the store's newest scan is another, it is read again.
import { applyLoadChange, type LoadChange, type LoadHistory } from "../evaluate/load-arrivals.js";
import { nextPass, type CheckPass, type PreviousCheck } from "../evaluate/check-pass.js";
import type { CheckObservation } from "../evaluate/types.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import type { ScanRecord, Store } from "../store/store.js";
import type { IncrementalInput } from "./incremental.js";

export interface KnownPass {
  scanId: string | null;
  checks: Map<string, PreviousCheck>;
}

export interface KnownLoads {
  scanId: string | null;
  histories: Map<string, LoadHistory>;
  /** the clock (unix seconds) of the scan that saw them last; null: unknown, or the loads' own clock is fixed */
  clock: number | null;
}

/** The store's newest succeeded scan, asked at most once per scan (both memories check it). */
export type NewestScan = () => Promise<ScanRecord | null>;

export interface PassMemory {
  /** the last pass: this replica's, or the store's when another scanned since */
  previous(newestScan: NewestScan): Promise<Map<string, PreviousCheck>>;
  /** per catalogue snapshot: the checks' identities, computed again only when the schema changes */
  cacheFor(snapshot: CatalogSnapshot): NonNullable<IncrementalInput["cache"]>;
  /** what the store holds after a scan (passAfter); null: read it again next time */
  set(next: KnownPass | null): void;
}

export function createPassMemory(store: Pick<Store, "readPasses">): PassMemory {
  let last: KnownPass | null = null;
  const caches = new WeakMap<CatalogSnapshot, NonNullable<IncrementalInput["cache"]>>();
  return {
    async previous(newestScan) {
      const newest = (await newestScan())?.scan_id ?? null;
      if (last?.scanId !== newest) last = { scanId: newest, checks: await store.readPasses() };
      return last.checks;
    },
    cacheFor(snapshot) {
      let cache = caches.get(snapshot);
      if (!cache) caches.set(snapshot, (cache = {}));
      return cache;
    },
    set(next) {
      last = next;
    },
  };
}

/** The pass the store holds after `scan`, unless a later-started scan had already written newer results. */
export function passAfter(
  previous: Map<string, PreviousCheck> | null,
  passes: ReadonlyMap<string, CheckPass | null> | undefined,
  observations: ReadonlyMap<string, CheckObservation>,
  scan: ScanRecord,
): KnownPass | null {
  if (!previous || !passes || scan.results_written === false) return null;
  return { scanId: scan.scan_id, checks: nextPass(previous, passes, observations) };
}

export interface LoadMemory {
  /** the loads as of the store's newest succeeded scan; null when no test of the snapshot watches loads */
  read(snapshot: CatalogSnapshot, newestScan: NewestScan): Promise<KnownLoads | null>;
  /** what the store holds after a scan (loadsAfter); null: read them again next time */
  set(next: KnownLoads | null): void;
}

/** `fixedClock`: the loads' clock is set by the caller (tests), so a scan's start does not date them. */
export function createLoadMemory(store: Pick<Store, "readLoads">, fixedClock: boolean): LoadMemory {
  let known: KnownLoads | null = null;
  return {
    async read(snapshot, newestScan) {
      if (!snapshot.tests.some((t) => t.probe.type === "load_cadence")) return null;
      const newest = await newestScan();
      if (known?.scanId !== (newest?.scan_id ?? null)) {
        // Another replica (or a previous process) scanned last: its start bounds when a load landed.
        const clock = fixedClock || !newest ? null : Math.floor(newest.started_at.getTime() / 1000);
        known = { scanId: newest?.scan_id ?? null, histories: await store.readLoads(), clock };
      }
      return known;
    },
    set(next) {
      known = next;
    },
  };
}

/**
 * The loads the store holds after `scan` wrote `changes`: the replica's copy takes them without
 * reading them back. The histories are updated in place (they are this replica's own copy, up to
 * 10,000s of series); null when the scan's results were not written.
 */
export function loadsAfter(
  known: KnownLoads | null,
  changes: ReadonlyMap<string, LoadChange>,
  scan: ScanRecord,
  clock: number,
): KnownLoads | null {
  if (!known || scan.results_written === false) return null;
  for (const [series, change] of changes) known.histories.set(series, applyLoadChange(known.histories.get(series), change));
  return { scanId: scan.scan_id, histories: known.histories, clock };
}
