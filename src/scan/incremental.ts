// The incremental part of a scan: read every datasource's table fingerprints (one metadata
// query each, before any table is read, so a change during the scan is seen by the next one),
// decide with plan/reuse.ts which checks keep their previous result, and after the reads say
// what the store keeps beside each result.
import type { CheckObservation } from "../evaluate/types.js";
import { forEachSlice } from "../event-loop/chunked.js";
import type { InferredTest } from "../infer/types.js";
import { fingerprintQuery, fingerprintsFromRows, type FingerprintRow } from "../plan/fingerprint-query.js";
import {
  createReuseDecider,
  identifyCheck,
  passRecords,
  tablesToFingerprint,
  type CheckIdentity,
  type CheckPass,
  type DatasourceFingerprints,
  type PreviousCheck,
} from "../plan/reuse.js";
import type { WarehouseSchema } from "../plan/types.js";
import { WarehouseError } from "../warehouse/warehouse-error.js";
import type { Warehouse } from "../warehouse/warehouse.js";

export interface IncrementalInput {
  /** the last pass's results with their bases, by check key (store.readPasses) */
  previous: ReadonlyMap<string, PreviousCheck>;
  /**
   * Kept by the caller across scans of one catalogue: the checks' identities are computed again
   * only when the warehouse schema changed (at 100,000 tests they cost a few hundred ms).
   */
  cache?: { identities?: { schema: string; byKey: Map<string, CheckIdentity | null> } };
}

export interface IncrementalSummary {
  /** distinct checks that kept their result, kept with their age judged again, or were read */
  kept: number;
  rejudged: number;
  read: number;
  /** tables with a fingerprint; tables always read (no parts: views, Memory, Distributed...) */
  tables_fingerprinted: number;
  tables_always_read: number;
}

export interface Incremental {
  /** the tests to plan */
  read: InferredTest[];
  summary: IncrementalSummary;
  /** Adds the kept results to `observations` and returns what the store keeps beside them. */
  finish(observations: Map<string, CheckObservation>): Map<string, CheckPass | null>;
}

/**
 * The fingerprints of `tables`, or null when ClickHouse refused the metadata query (e.g. a user
 * without access to system.parts): every check is then read, as without this feature. An
 * outage throws: the caller fails the scan.
 */
export async function readFingerprints(
  warehouse: Warehouse,
  tables: readonly string[],
  options: { queryId: string; signal?: AbortSignal },
): Promise<ReturnType<typeof fingerprintsFromRows> | null> {
  try {
    const rows = await warehouse.query(fingerprintQuery(tables), {
      queryId: options.queryId,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return fingerprintsFromRows(rows as unknown as FingerprintRow[]);
  } catch (error) {
    if (error instanceof WarehouseError && (error.kind === "query" || error.kind === "rejected")) return null;
    throw error;
  }
}

/** identifyCheck per distinct key, from the cache when the schema is the same, in slices. */
async function identitiesFor(
  tests: readonly InferredTest[],
  schema: WarehouseSchema,
  cache: IncrementalInput["cache"],
): Promise<Map<string, CheckIdentity | null>> {
  const signature = JSON.stringify(schema);
  const byKey = cache?.identities?.schema === signature ? cache.identities.byKey : new Map<string, CheckIdentity | null>();
  await forEachSlice(tests, (slice) => {
    for (const test of slice) if (!byKey.has(test.key)) byKey.set(test.key, identifyCheck(test, schema));
  });
  if (cache) cache.identities = { schema: signature, byKey };
  return byKey;
}

export async function startIncremental(
  tests: readonly InferredTest[],
  schema: WarehouseSchema,
  warehouses: ReadonlyMap<string, Warehouse>,
  input: IncrementalInput,
  options: { scanId: string; signal?: AbortSignal },
): Promise<Incremental> {
  const identities = await identitiesFor(tests, schema, input.cache);
  const fingerprints = new Map<string, DatasourceFingerprints>();
  let alwaysRead = 0;
  for (const [datasource, tables] of tablesToFingerprint(identities)) {
    const warehouse = warehouses.get(datasource);
    if (!warehouse) continue;
    const read = await readFingerprints(warehouse, tables, { queryId: `${options.scanId}-parts-${datasource}`, ...options });
    if (read === null) continue;
    fingerprints.set(datasource, read);
    alwaysRead += tables.filter((table) => !read.tables.has(table)).length;
  }
  const decider = createReuseDecider({ identities, fingerprints, previous: input.previous });
  await forEachSlice(tests, (slice) => decider.add(slice));
  const decision = decider.result();
  const fingerprinted = [...fingerprints.values()].reduce((sum, f) => sum + f.tables.size, 0);
  return {
    read: decision.read,
    summary: { ...decision.counts, tables_fingerprinted: fingerprinted, tables_always_read: alwaysRead },
    finish(observations) {
      for (const [key, observation] of decision.carried) observations.set(key, observation);
      return passRecords(decision, observations, input.previous);
    },
  };
}
