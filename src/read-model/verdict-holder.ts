// The anomaly series' verdicts a replica holds, as of a scan: all of them after a scan this
// replica ran (the scan scored them; the store got the same), otherwise those a request needed,
// read from the store once per scan and kept (bounded). Requests draw charts from here; nothing
// here scores a series or reads the warehouse.
import { sameVerdicts, type SeriesVerdicts } from "../evaluate/series-verdicts.js";

/** Series read from the store on demand, kept at most this many (the map starts again when full). */
export const LOADED_KEPT = 20_000;

export interface VerdictHolder {
  /** After this replica's scan wrote its results: every series' verdicts as of `scanId`. */
  storeScan(scanId: string, verdicts: ReadonlyMap<string, SeriesVerdicts>): void;
  /**
   * The complete set this replica holds (its last scan's, with feedback since), the basis of the
   * next scan's write; `unsure`: series another replica re-scored since, whose held verdicts may
   * not be the store's (the next scan writes them whatever it scores).
   */
  held(): HeldVerdicts;
  /** As of `scanId`: the series' verdicts, null when it has none, undefined when not held (read the store). */
  get(scanId: string, key: string): SeriesVerdicts | null | undefined;
  /**
   * What the store answered for `keys` as of `scanId` (a key it did not answer has none), read
   * when the revision was `asOf`: held only if nothing changed since (a forget during the read
   * means the answer may predate the change it announced; held, it would stay stale until a scan).
   * Returns whether it is held.
   */
  load(scanId: string, keys: readonly string[], found: ReadonlyMap<string, SeriesVerdicts>, asOf: number): boolean;
  /** One series scored again outside a scan (feedback), as of `scanId`. */
  put(scanId: string, verdicts: SeriesVerdicts): void;
  /**
   * Another replica re-scored `checkKey`'s series (feedback): what is held of it may not be
   * current, so it is read from the store again when asked. Without a key (a notification that
   * did not name one): every series, and the next scan writes every series it scored.
   */
  forget(checkKey?: string): void;
  /** Changes whenever a held verdict may have: the cache key of what is drawn from them. */
  revision(): number;
}

export interface HeldVerdicts {
  scanId: string | null;
  verdicts: ReadonlyMap<string, SeriesVerdicts>;
  /** absent when empty */
  unsure?: ReadonlySet<string>;
}

/** Which held series a scan changed: the write the store needs (see FinishedScan.anomalies.verdicts). */
export function verdictChanges(
  held: ReadonlyMap<string, SeriesVerdicts>,
  next: ReadonlyMap<string, SeriesVerdicts>,
): { changed: string[]; removed: string[] } {
  const changed: string[] = [];
  for (const [key, verdicts] of next) if (!sameVerdicts(held.get(key), verdicts)) changed.push(key);
  const removed = [...held.keys()].filter((key) => !next.has(key));
  return { changed, removed };
}

export function createVerdictHolder(loadedKept = LOADED_KEPT): VerdictHolder {
  /** `unsure`: series of the set forgotten since (another replica re-scored them), read again when asked */
  let complete: { scanId: string; verdicts: Map<string, SeriesVerdicts>; unsure: Set<string> } | null = null;
  let loaded = new Map<string, { scanId: string; verdicts: SeriesVerdicts | null }>();
  let revision = 0;

  return {
    storeScan(scanId, verdicts) {
      complete = { scanId, verdicts: new Map(verdicts), unsure: new Set() };
      loaded = new Map();
      revision += 1;
    },
    held: () =>
      complete
        ? { scanId: complete.scanId, verdicts: complete.verdicts, ...(complete.unsure.size > 0 ? { unsure: complete.unsure } : {}) }
        : { scanId: null, verdicts: new Map() },
    get(scanId, key) {
      if (complete?.scanId === scanId && !complete.unsure.has(key)) return complete.verdicts.get(key) ?? null;
      const entry = loaded.get(key);
      return entry?.scanId === scanId ? entry.verdicts : undefined;
    },
    load(scanId, keys, found, asOf) {
      if (asOf !== revision) return false;
      const rest = complete?.scanId === scanId ? keys.filter((key) => !settle(complete!, key, found.get(key))) : keys;
      if (loaded.size + rest.length > loadedKept) loaded = new Map();
      for (const key of rest) loaded.set(key, { scanId, verdicts: found.get(key) ?? null });
      return true;
    },
    put(scanId, verdicts) {
      if (complete?.scanId === scanId) {
        complete.verdicts.set(verdicts.check_key, verdicts);
        complete.unsure.delete(verdicts.check_key);
      } else loaded.set(verdicts.check_key, { scanId, verdicts });
      revision += 1;
    },
    forget(checkKey) {
      if (checkKey === undefined) {
        complete = null;
        loaded = new Map();
      } else {
        complete?.unsure.add(checkKey);
        loaded.delete(checkKey);
      }
      revision += 1;
    },
    revision: () => revision,
  };
}

/** The store's answer for an unsure series of the complete set: held as current again (true), or not one of them. */
function settle(
  complete: { verdicts: Map<string, SeriesVerdicts>; unsure: Set<string> },
  key: string,
  found: SeriesVerdicts | undefined,
): boolean {
  if (!complete.unsure.delete(key)) return false;
  if (found) complete.verdicts.set(key, found);
  else complete.verdicts.delete(key);
  return true;
}
