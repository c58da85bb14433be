// The incremental part of a scan: read every datasource's table fingerprints (one metadata
// query each, before any table is read, so a change during the scan is seen by the next one),
// decide with scan/unchanged-checks.ts which checks keep their previous result, and after the reads say
// what the store keeps beside each result.
import type { CheckObservation } from "../evaluate/types.js";
import { forEachSlice } from "../event-loop/chunked.js";
import type { InferredTest } from "../infer/types.js";
import {
  fingerprintQuery,
  fingerprintsFromRows,
  type FingerprintRow,
  type TableFingerprints,
  type TableParts,
} from "../plan/fingerprint-query.js";
import { createReuseDecider, identifyCheck, passRecords, tablesToFingerprint, type Identified } from "./unchanged-checks.js";
import type { CheckPass, PreviousCheck } from "../evaluate/check-pass.js";
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
  cache?: { identities?: { tests: readonly InferredTest[]; schema: string; distinct: InferredTest[]; byKey: Map<string, Identified> } };
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
  /** the tests to plan: one per distinct check that keeps no result */
  read: InferredTest[];
  /** a table's fingerprint as read at the start of this scan (null: none), for the anomaly series' reuse */
  fingerprintOf: (datasource: string, table: string) => string | null;
  /** a MergeTree table's active parts as read at the start of this scan (null: none), for freshness_anomaly's loads */
  partsOf: (datasource: string, table: string) => TableParts | null;
  /** the server's clock when the fingerprints were read (unix seconds), if any were */
  serverNow: number | null;
  summary: IncrementalSummary;
  /**
   * Adds the kept results to `observations`; returns what the store keeps beside the results,
   * and the checks kept as they were (already in the store as they are).
   */
  finish(observations: Map<string, CheckObservation>): { passes: Map<string, CheckPass | null>; unchanged: Set<string> };
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

/**
 * One test per distinct key (the planner and the observer need no more: shared checks run and are
 * observed once), and identifyCheck per key: from the cache when the tests and the schema are the
 * same as last time, else computed in slices.
 */
async function identitiesFor(
  tests: readonly InferredTest[],
  schema: WarehouseSchema,
  cache: IncrementalInput["cache"],
): Promise<{ distinct: InferredTest[]; byKey: Map<string, Identified> }> {
  const signature = JSON.stringify(schema);
  const cached = cache?.identities;
  if (cached && cached.tests === tests && cached.schema === signature) return cached;
  const byKey = cached?.schema === signature ? cached.byKey : new Map<string, Identified>();
  const distinct: InferredTest[] = [];
  const seen = new Set<string>();
  await forEachSlice(tests, (slice) => {
    for (const test of slice) {
      if (seen.has(test.key)) continue;
      seen.add(test.key);
      distinct.push(test);
      if (!byKey.has(test.key)) byKey.set(test.key, identifyCheck(test, schema));
    }
  });
  const identities = { tests, schema: signature, distinct, byKey };
  if (cache) cache.identities = identities;
  return identities;
}

export async function startIncremental(
  tests: readonly InferredTest[],
  schema: WarehouseSchema,
  warehouses: ReadonlyMap<string, Warehouse>,
  input: IncrementalInput,
  options: { scanId: string; signal?: AbortSignal },
): Promise<Incremental> {
  const { distinct, byKey: identities } = await identitiesFor(tests, schema, input.cache);
  const fingerprints = new Map<string, TableFingerprints>();
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
  await forEachSlice(distinct, (slice) => decider.addDistinct(slice));
  const decision = decider.result();
  const fingerprinted = [...fingerprints.values()].reduce((sum, f) => sum + f.tables.size, 0);
  const serverNow = [...fingerprints.values()].find((f) => f.serverNow !== null)?.serverNow ?? null;
  return {
    read: decision.read,
    fingerprintOf: (datasource, table) => fingerprints.get(datasource)?.tables.get(table) ?? null,
    partsOf: (datasource, table) => fingerprints.get(datasource)?.parts.get(table) ?? null,
    serverNow,
    summary: { ...decision.counts, tables_fingerprinted: fingerprinted, tables_always_read: alwaysRead },
    finish(observations) {
      for (const [key, observation] of decision.carried) observations.set(key, observation);
      return { passes: passRecords(decision, observations, input.previous), unchanged: decision.unchanged };
    },
  };
}
