// Another replica's scan, taken in from what the store says it wrote (store/read-delta.ts)
// instead of every status, check result and status period read back: a replica hears of the scan
// (LISTEN/NOTIFY) and serves it within a second, whatever the catalogue's size. Pure.
import type { ReadState, ScanDelta } from "../store/store.js";

/** `previous` (the state of the delta's base scan) with the delta's rows over it. */
export function applyDelta(previous: ReadState, delta: ScanDelta): ReadState {
  const written = new Map(delta.statuses.map((row) => [row.metric_name, row]));
  // Rows keep their place; metrics new to the store come after (the view is keyed, not ordered).
  const statuses = previous.statuses.map((row) => {
    const next = written.get(row.metric_name);
    if (next) written.delete(row.metric_name);
    return next ?? row;
  });
  statuses.push(...written.values());
  const observations = new Map(previous.observations);
  for (const [key, observation] of delta.observations) observations.set(key, observation);
  const history = new Map(previous.history);
  for (const [metric, periods] of delta.history) history.set(metric, periods);
  return { ...previous, scan: delta.scan, statuses, observations, history, feedback: delta.feedback, incidents: delta.incidents };
}
