// What a scan sends to the store and then to the read model, built from its outcome: plain values
// in and out, no I/O.
import type { SeriesVerdicts } from "../evaluate/series-verdicts.js";
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import { sameObservation, sameValues, type ScanWrite } from "../read-model/apply-scan.js";
import { verdictChanges, type HeldVerdicts } from "../read-model/verdict-holder.js";
import type { MetricStatus } from "../derive/types.js";
import type { CheckObservation } from "../evaluate/types.js";
import type { FinishedScan, ScanRecord, VerdictsWrite } from "../store/store.js";
import type { ScanOutcome } from "./execute-scan.js";
import type { HeldView } from "./types.js";

/**
 * The scan's verdicts against those the replica holds (read-model/verdict-holder.ts): the store
 * is sent only what changed, and every series another replica re-scored since (`unsure`: what
 * is held of it may not be the store's).
 */
export function verdictsWrite(held: HeldVerdicts | null, all: ReadonlyMap<string, SeriesVerdicts>): VerdictsWrite {
  if (held === null || held.scanId === null) return { all, changed: [...all.keys()], removed: [], basis: null };
  const { changed, removed } = verdictChanges(held.verdicts, all);
  const unsure = held.unsure ?? new Set<string>();
  if (unsure.size === 0) return { all, changed, removed, basis: held.scanId };
  const listed = new Set([...changed, ...removed]);
  return {
    all,
    changed: [...changed, ...[...all.keys()].filter((key) => unsure.has(key) && !listed.has(key))],
    removed: [...removed, ...[...unsure].filter((key) => !all.has(key) && !listed.has(key))],
    basis: held.scanId,
  };
}

/** The scan's statuses that differ from those held (see FinishedScan.statusesChanged); null: no basis. */
export function statusesChanged(held: HeldView | null, statuses: readonly MetricStatus[]): FinishedScan["statusesChanged"] | null {
  if (held === null || held.scanId === null) return null;
  return {
    basis: held.scanId,
    changed: statuses.filter((s) => {
      const row = held.statuses.get(s.metric_name);
      return row === undefined || !sameValues(row, s);
    }),
  };
}

/**
 * The checks whose observation is the one held, as the store keeps it (storedObservation).
 * Checks in `unchanged` (kept as the store holds them: never sent) are not compared.
 */
export function observationsSame(
  held: HeldView | null,
  observations: ReadonlyMap<string, CheckObservation>,
  unchanged: ReadonlySet<string> = new Set(),
): FinishedScan["observationsSame"] | null {
  if (held === null || held.scanId === null) return null;
  const keys = new Set<string>();
  for (const [key, o] of observations) {
    if (unchanged.has(key)) continue;
    const before = held.observations.get(key);
    if (before !== undefined && sameObservation(before, o)) keys.add(key);
  }
  return { basis: held.scanId, keys };
}

/** completeScan's input: the results, the statuses, the anomalies and the incidents' problems of one scan. */
export function finishedScan(
  scanId: string,
  snapshot: CatalogSnapshot,
  outcome: ScanOutcome,
  held: HeldVerdicts | null,
  heldView: HeldView | null = null,
): FinishedScan {
  const changed = statusesChanged(heldView, outcome.statuses);
  const same = observationsSame(heldView, outcome.observations, outcome.unchanged);
  return {
    scan_id: scanId,
    catalog: { version: snapshot.version, tests: snapshot.tests },
    observations: outcome.observations,
    statuses: outcome.statuses,
    ...(changed ? { statusesChanged: changed } : {}),
    ...(same ? { observationsSame: same } : {}),
    summary: outcome.summary,
    anomalies: {
      flagged: outcome.anomalies.flagged,
      judged: outcome.anomalies.judged,
      verdicts: verdictsWrite(held, outcome.anomalies.verdicts),
    },
    ...(outcome.passes ? { passes: outcome.passes } : {}),
    ...(outcome.unchanged ? { unchanged: outcome.unchanged } : {}),
    // Failing tests by root table: the store opens, extends or resolves incidents with them.
    problems: outcome.judgement.problems,
    ...(outcome.anomalies.loads.size > 0 ? { loads: outcome.anomalies.loads } : {}),
  };
}

/** What the read model takes in after the store wrote the scan (read-model/apply-scan.ts). */
export function readModelWrite(scan: ScanRecord, outcome: ScanOutcome, prunedBefore: Date): ScanWrite {
  return {
    scan,
    statuses: outcome.statuses,
    observations: outcome.observations,
    ...(outcome.unchanged ? { unchanged: outcome.unchanged } : {}),
    prunedBefore,
    verdicts: outcome.anomalies.verdicts,
  };
}

/** Seconds to the millisecond, for logs without float noise. */
const round3 = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** The "scan succeeded" log line's fields: where the time went and what the scan found. */
export function succeededLog(
  scan: ScanRecord,
  outcome: ScanOutcome,
  seconds: { total: number; store: number; readModel: number },
): Record<string, unknown> {
  return {
    seconds: {
      total: round3(seconds.total),
      warehouse: round3(outcome.timings.warehouse),
      evaluate: round3(outcome.timings.evaluate),
      series: round3(outcome.timings.series),
      store: round3(seconds.store),
      read_model: round3(seconds.readModel),
    },
    summary: scan.summary,
    isolation_queries: outcome.isolationQueries,
    series_queries: outcome.anomalies.queries,
    series_reused: outcome.anomalies.reused,
    anomalies_flagged: outcome.anomalies.flagged.length,
    incidents_changed: scan.incidents?.length ?? 0,
    ...(outcome.incremental ? { incremental: outcome.incremental } : {}),
  };
}
