// What the store keeps per check beside its result, so a later scan can keep that result while
// the check's tables are unchanged (scan/unchanged-checks.ts decides). Pure.
import type { CheckObservation } from "./types.js";

/** What the store keeps per check beside its current result. */
export interface CheckPass {
  /** hash of the check's SQL and of the fingerprints of every table it reads, when measured */
  basis: string;
  /** staleness checks: the newest timestamp read (unix seconds), to judge its age again */
  newest: number | null;
}

export interface PreviousCheck extends CheckPass {
  observation: CheckObservation;
}

/** The previous pass updated with a pass's records: what the store holds after writing them. */
export function nextPass(
  previous: ReadonlyMap<string, PreviousCheck>,
  records: ReadonlyMap<string, CheckPass | null>,
  observations: ReadonlyMap<string, CheckObservation>,
): Map<string, PreviousCheck> {
  const next = new Map(previous);
  for (const [key, record] of records) {
    const observation = observations.get(key);
    if (record === null || observation === undefined) next.delete(key);
    // A literal, not a spread: a spread gave each of 20,000 held checks a hidden class of its own.
    else next.set(key, { basis: record.basis, newest: record.newest, observation });
  }
  return next;
}
