// The tests a scan runs: the catalogue's, less those of blocked metrics, with column names spelt
// as the warehouse spells them. Worked out once per (snapshot, blocked metrics, schema): an
// unchanged scan gets the same array back, and with it every cache keyed on it (the check
// identities of incremental.ts, the anomaly plan of anomaly-series.ts). Resolving the letter
// case of 134,000 tests again on every scan was a tenth of an unchanged scan at 10,000 metrics.
import type { CatalogSnapshot } from "../infer/catalog-snapshot.js";
import { resolveColumnCase, type CaseResolution } from "../plan/column-case.js";
import type { WarehouseSchema } from "../plan/types.js";

const resolved = new WeakMap<CatalogSnapshot, { signature: string; cased: CaseResolution }>();

export function testsToRun(snapshot: CatalogSnapshot, blocked: ReadonlyMap<string, string>, schema: WarehouseSchema): CaseResolution {
  const signature = JSON.stringify([[...blocked.keys()].sort(), schema]);
  const kept = resolved.get(snapshot);
  if (kept?.signature === signature) return kept.cased;
  const cased = resolveColumnCase(blocked.size === 0 ? snapshot.tests : snapshot.tests.filter((t) => !blocked.has(t.metric)), schema);
  resolved.set(snapshot, { signature, cased });
  return cased;
}
