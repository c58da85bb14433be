// The incidents after a scan wrote the ones it changed (whole), in the store's order: how the
// read model (read-model/apply-scan.ts) and the store's memory of the open ones
// (store/incident-store.ts) follow a scan without reading the incidents back.
import type { Incident } from "./types.js";

/** The store's incidents after the scan wrote `changed` (whole) and pruning dropped those resolved before the cut-off; newest opened first. */
export function nextIncidents(previous: readonly Incident[], changed: readonly Incident[], prunedBefore?: Date): Incident[] {
  const byId = new Map(changed.map((i) => [i.id, i]));
  const cut = prunedBefore?.getTime() ?? Number.NEGATIVE_INFINITY;
  const kept = (i: Incident) => i.resolved_at === null || i.resolved_at.getTime() >= cut;
  const known = new Set(previous.map((i) => i.id));
  const opened = changed.filter((i) => !known.has(i.id));
  return [...opened, ...previous.map((i) => byId.get(i.id) ?? i)].filter(kept).sort(incidentOrder);
}

/** The store's order (incident-store.ts): opened_at descending, then id descending, bytewise. */
export function incidentOrder(a: Incident, b: Incident): number {
  const opened = b.opened_at.getTime() - a.opened_at.getTime();
  if (opened !== 0) return opened;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
